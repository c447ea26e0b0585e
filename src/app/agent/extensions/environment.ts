import { runEventId } from "../../../domain/agent/ids.js";
import type { SessionEventInput } from "../../../domain/agent/session-events.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonObject } from "../../../domain/json.js";
import type { SessionStore } from "../../../ports/session-store.js";
import type { AgentSessionEnvironment } from "./types.js";

/**
 * The session's execution target (EXT-5): the environment recorded by the session's first run,
 * else the configured one (recorded with this run's start). Chosen once per session, it stays
 * across turns and resumes even when the options change. A run whose workdir or allowed
 * directories are gone (asked of `directoryExists`, the runtime's) fails with `unavailable`
 * before doing anything.
 *
 * @example
 * const { environment, record } = await sessionEnvironment(store, { workdir: "/srv/checkout" }, "run-1", (path) => runtime.directoryExists(path));
 */
export async function sessionEnvironment(store: SessionStore, configured: AgentSessionEnvironment, runId: string, directoryExists: (path: string) => Promise<boolean>): Promise<{ environment: AgentSessionEnvironment; record: SessionEventInput | null }> {
  const recorded = (await store.readAfter(0, { types: ["extension"] })).find((event) => event.type === "extension" && event.payload.feature === "environment");
  const environment = recorded?.type === "extension" ? (recorded.payload.data as unknown as AgentSessionEnvironment) : configured;
  for (const directory of [environment.workdir, ...(environment.allowedDirectories ?? [])]) {
    if (!(await directoryExists(directory))) {
      throw new SteamharnessError("unavailable", `[steamharness] the session's environment is gone: ${directory} no longer exists (the session was set up to run in ${environment.workdir})`, { data: { directory, workdir: environment.workdir } });
    }
  }
  const record: SessionEventInput | null = recorded ? null : { eventId: runEventId(runId, "environment"), runId, type: "extension", payload: { feature: "environment", data: JSON.parse(JSON.stringify(environment)) as JsonObject } };
  return { environment, record };
}
