import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import type { Telemetry, TelemetryLeaseInfo } from "../../ports/telemetry.js";

/**
 * The host record's setting naming the host that holds the session's lease: written when a host
 * takes the lease, cleared when it releases it. A host that finds another host's id there took
 * the session over from a holder that ended without releasing (killed, machine or connection gone).
 */
export const LEASE_OWNER_SETTING = "leaseOwner";

/** The session and the owner of a host's lease, as its lease events report them. */
export type HostLeaseIdentity = Pick<TelemetryLeaseInfo, "projectId" | "conversationId" | "sessionKey" | "ownerId">;

/**
 * The lease bookkeeping of a session host (OBS lease events): `acquired` records this host as the
 * owner in the host record and reports `acquired` — or `takeover`, with the previous owner, when
 * the record still names a host that never released — as a short span; `lost` reports the lease
 * gone, once. Reporting never fails the host; the owner record is written whatever the telemetry.
 *
 * @example
 * const lease = recordLeaseOwner(store, context.runtime.telemetry, { projectId, conversationId, sessionKey, ownerId: hostId });
 * await lease.acquired(startedAt);
 */
export function recordLeaseOwner(store: AgentSessionHostStore, telemetry: Telemetry, identity: HostLeaseIdentity) {
  let lostReported = false;
  return {
    async acquired(startedAt: number): Promise<void> {
      const previous = await store.getSetting(LEASE_OWNER_SETTING);
      await store.setSetting(LEASE_OWNER_SETTING, identity.ownerId);
      const takeover = previous !== null && previous !== "" && previous !== identity.ownerId;
      telemetry.lease({ ...identity, event: takeover ? "takeover" : "acquired", ...(takeover ? { previousOwnerId: previous } : {}), startedAt });
    },
    lost(): void {
      if (lostReported) return;
      lostReported = true;
      telemetry.lease({ ...identity, event: "lost" });
    },
  };
}
