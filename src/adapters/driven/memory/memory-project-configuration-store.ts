import { emptyProjectConfigurationState, type ProjectConfigurationState } from "../../../domain/configuration/configuration-state.js";
import { createStateBackedConfigurationStore } from "../../../domain/configuration/state-backed-store.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { Clock } from "../../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { createSystemClock } from "../system/clock.js";

/** Options of {@link createMemoryProjectConfigurationStore}. */
export interface MemoryProjectConfigurationStoreOptions {
  clock?: Clock;
}

/**
 * The in-memory reference project configuration store (CFG-1). Each project's state is kept
 * serialised, so callers never share objects with the store; a write is one synchronous
 * read-apply-store step, hence atomic within the process.
 *
 * @example
 * const store = createMemoryProjectConfigurationStore();
 * await store.create("project-1", { configurationId: "main", name: "Main", values: {} });
 */
export function createMemoryProjectConfigurationStore(options: MemoryProjectConfigurationStoreOptions = {}): ProjectConfigurationStore {
  const projects = new Map<string, string>();
  let closed = false;
  const read = (projectId: string): ProjectConfigurationState => {
    if (closed) throw new SteamharnessError("storage_failure", "[steamharness] [memory] the configuration store is closed");
    const text = projects.get(projectId);
    return text === undefined ? emptyProjectConfigurationState(projectId) : (JSON.parse(text) as ProjectConfigurationState);
  };
  return createStateBackedConfigurationStore(
    {
      async load(projectId) {
        return read(projectId);
      },
      async transact(projectId, apply) {
        const { state } = apply(read(projectId));
        projects.set(projectId, JSON.stringify(state));
        return state;
      },
      async close() {
        closed = true;
        projects.clear();
      },
    },
    options.clock ?? createSystemClock(),
  );
}
