import type { AgentSessionTask } from "../agent/extensions/types.js";
import type { JsonValue } from "../../domain/json.js";
import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import type { HostRuntime } from "./host-runtime.js";

/** The running registry tasks of a host. */
export interface RegistryTasks {
  /** Stops every task (their signal aborts); they are not marked finished and run again on resume. */
  abort(): void;
}

const settingOf = (name: string): string => `registry-task:${name}`;

/**
 * Starts the background tasks of `session.registry` (EXT-2) under the host's lease: each runs as
 * host background work (so `close()` waits for it), with its last saved state from the host
 * record and a `save` that writes it there durably. A task that returns is marked finished and
 * not run again; one stopped by suspend, close or a session cancel keeps its state and runs
 * again — from that state — in a host opened with `resume: true`. A task that throws is marked
 * failed with its message (kept for diagnostics) and not run again.
 *
 * @example
 * const tasks = startRegistryTasks(runtime, store, [{ name: "indexer", run: async ({ signal, state, save }) => { … } }]);
 * tasks.abort();
 */
export function startRegistryTasks(runtime: HostRuntime, store: AgentSessionHostStore, tasks: readonly AgentSessionTask[]): RegistryTasks {
  const controller = new AbortController();
  for (const task of tasks) {
    void runtime
      .runInBackground(async (hostSignal) => {
        const key = settingOf(task.name);
        const raw = await store.getSetting(key);
        const saved = (raw === null ? { state: null } : JSON.parse(raw)) as { state: JsonValue | null; status?: "finished" | "failed"; error?: string };
        if (saved.status) return;
        let state = saved.state;
        const signal = AbortSignal.any([hostSignal, controller.signal]);
        try {
          await task.run({
            signal,
            state,
            save: async (next) => {
              state = JSON.parse(JSON.stringify(next)) as JsonValue;
              await store.setSetting(key, JSON.stringify({ state }));
            },
          });
          if (!signal.aborted) await store.setSetting(key, JSON.stringify({ state, status: "finished" }));
        } catch (error) {
          if (signal.aborted) return;
          await store.setSetting(key, JSON.stringify({ state, status: "failed", error: error instanceof Error ? error.message : String(error) }));
        }
      })
      .catch(() => undefined);
  }
  return { abort: () => controller.abort() };
}
