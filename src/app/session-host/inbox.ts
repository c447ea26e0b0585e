import { isSteamharnessError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { parseAgentSessionCommand, type AgentSessionCommand } from "../../domain/session-host/commands.js";
import { CANCEL, type HostRuntime } from "./host-runtime.js";
import type { AgentSessionCommandResult } from "./types.js";

/** Options of {@link startInbox}. */
export interface InboxOptions {
  runtime: HostRuntime;
  control(command: AgentSessionCommand): Promise<AgentSessionCommandResult>;
  pollMs: number;
  /** Commands up to this seq were sent before a host opened without `resume`: answered as unavailable, not run. */
  skipUpTo: number;
}

/** Commands that wait for running work; the poller answers them when they finish instead of blocking. */
const WAITING_COMMANDS = new Set(["compact", "reset", "fork"]);

/**
 * The durable command inbox of a host (HOST-1): `controlAgentSession` in another process appends
 * a command to the conversation's host record; the lease holder polls it, runs each command in
 * order and writes the result (or the error code and message) back. Each poll also notices a
 * cancel intent persisted by another process (`cancelAgentConversation`) and stops the running
 * task (HOST-5). The timer is unref'd: it never keeps a process alive.
 *
 * @example
 * const inbox = startInbox({ runtime, control, pollMs: 50, skipUpTo: 0 });
 * inbox.stop();
 */
export function startInbox(options: InboxOptions) {
  const { runtime } = options;
  const store = runtime.parts.store;
  let lastSeq = 0;
  let polling: Promise<void> | null = null;
  let stopped = false;

  const answer = (seq: number, outcome: Promise<AgentSessionCommandResult>) =>
    outcome.then(
      (result) => store.answerCommand(seq, { result: result as unknown as JsonObject }),
      (error: unknown) =>
        store.answerCommand(seq, { error: { code: isSteamharnessError(error) ? error.code : "internal", message: error instanceof Error ? error.message : String(error) } }),
    ).catch(() => undefined);

  const poll = async (): Promise<void> => {
    if (runtime.state === "open" && !runtime.parts.lease.isHeld()) runtime.parts.leaseLost();
    const entries = await store.pendingCommands(lastSeq);
    for (const entry of entries) {
      lastSeq = entry.seq;
      if (entry.seq <= options.skipUpTo) {
        await store.answerCommand(entry.seq, { error: { code: "unavailable", message: "the command was sent before this host opened without resume" } });
        continue;
      }
      let command: AgentSessionCommand;
      try {
        command = parseAgentSessionCommand(entry.command);
      } catch (error) {
        await answer(entry.seq, Promise.reject(error));
        continue;
      }
      const outcome = options.control(command);
      if (WAITING_COMMANDS.has(command.type)) void answer(entry.seq, outcome);
      else await answer(entry.seq, outcome);
    }
    const current = runtime.current;
    if (current) {
      const task = await store.getTask(current.task.taskId);
      if (task?.cancelRequested) current.controller.abort(CANCEL);
    }
  };

  const pollNow = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    polling ??= poll()
      .catch(() => undefined)
      .finally(() => {
        polling = null;
      });
    return polling;
  };

  const timer = setInterval(() => void pollNow(), options.pollMs);
  timer.unref();
  return {
    pollNow,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
