import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonObject } from "../../../domain/json.js";
import { canonicalJson, stableHash } from "../../../domain/stable-hash.js";
import type { PersistentValueStore } from "../../../ports/persistent-value-store.js";
import type { ToolPermissionAnswer, ToolPermissions } from "../../../ports/tool-permissions.js";
import type { UserInput, UserInputResponse } from "../../../ports/user-input.js";

/** A decision a person made for one request (a tool approval, a question or a plan). */
export type StoredDecision =
  | { kind: "tool_approval"; decision: ToolPermissionAnswer }
  | { kind: "question" | "plan" | "form"; response: Exclude<UserInputResponse, { outcome: "pending" }> };

/** Options of {@link createStoredDecisions}. */
export interface StoredDecisionsOptions {
  /** Where decisions are kept: the storage's persistent values (`storage.values`), shared by every process of the storage. */
  values: PersistentValueStore;
  projectId: string;
}

/** The prefix of the persistent-value names decisions are kept under. */
export const STORED_DECISION_PREFIX = "steamharness.decision.";

const nameOf = (requestId: string): string => `${STORED_DECISION_PREFIX}${stableHash(requestId)}`;

/**
 * Durable approval and user-input ports for decisions made elsewhere — in the run viewer's page
 * (VIEW-3) or any other process sharing the storage. Wire `toolPermissions` and `userInput` into
 * the node context (or the session host): a request without a recorded decision answers
 * `pending`, so the run pauses with `user_input_required`; once `record` stored a decision for
 * that request id, asking again returns it, and the run re-run on its run id goes on. A decision
 * binds to its request id only (SES-8); recording a second, different decision for the same id
 * is refused with `conflict` (a person's answer is never silently replaced).
 *
 * @example
 * const decisions = createStoredDecisions({ values: storage.values, projectId: "p" });
 * const context = createNodeContext({ projectId: "p", storage, runId, toolPermissions: decisions.toolPermissions, userInput: decisions.userInput });
 * await decisions.record(requestId, { kind: "tool_approval", decision: { outcome: "approved" } });
 */
export function createStoredDecisions(options: StoredDecisionsOptions) {
  const { values, projectId } = options;
  const read = async (requestId: string): Promise<(StoredDecision & { requestId: string }) | null> => {
    const stored = (await values.get(projectId, nameOf(requestId))) as (StoredDecision & { requestId: string }) | null;
    // A hash collision would name another request: the stored id must match.
    return stored && stored.requestId === requestId ? stored : null;
  };
  const toolPermissions: ToolPermissions = {
    async request(request, signal) {
      signal?.throwIfAborted();
      const stored = await read(request.requestId);
      return stored?.kind === "tool_approval" ? stored.decision : { outcome: "pending" };
    },
  };
  const userInput: UserInput = {
    async request(request, signal) {
      signal?.throwIfAborted();
      const stored = await read(request.requestId);
      return stored && stored.kind !== "tool_approval" ? stored.response : { outcome: "pending" };
    },
  };
  return {
    toolPermissions,
    userInput,
    /** The decision recorded for a request id, or `null`. */
    async get(requestId: string): Promise<StoredDecision | null> {
      const stored = await read(requestId);
      if (!stored) return null;
      const { requestId: _id, ...decision } = stored;
      return decision as StoredDecision;
    },
    /**
     * Records the decision for a request id. Recording the same decision again is a no-op
     * (whoever sent it again, whenever: the first `answeredBy` stays); a different one rejects
     * with `conflict`.
     */
    async record(requestId: string, decision: StoredDecision): Promise<void> {
      if (typeof requestId !== "string" || requestId === "") throw new SteamharnessError("input_validation", "requestId must be a non-empty string", { field: "requestId" });
      const existing = await read(requestId);
      const value = { ...decision, requestId } as unknown as JsonObject;
      if (existing) {
        if (canonicalJson(withoutAnswerer(existing)) === canonicalJson(withoutAnswerer(value))) return;
        throw new SteamharnessError("conflict", `request ${requestId} was already decided`, { field: "requestId" });
      }
      await values.set(projectId, nameOf(requestId), value);
    },
  };
}

/** A decision as compared for a repeat: who answered and when is not part of what was decided. */
function withoutAnswerer(stored: object): unknown {
  const { decision, response, ...rest } = stored as { decision?: object; response?: object };
  const strip = (value: object | undefined) => {
    if (value === undefined) return {};
    const { answeredBy: _by, ...kept } = value as { answeredBy?: unknown };
    return kept;
  };
  return { ...rest, ...(decision ? { decision: strip(decision) } : {}), ...(response ? { response: strip(response) } : {}) };
}

/** The ports and controls returned by {@link createStoredDecisions}. */
export type StoredDecisions = ReturnType<typeof createStoredDecisions>;

