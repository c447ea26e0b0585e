/**
 * Lines typed at the chat prompt, queued: typed-ahead or piped lines are never lost while a turn
 * runs (readline's `question` drops lines that arrive when no question is pending), and the end
 * of input only stops the chat once the queued lines are used up.
 */
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { SteamharnessError } from "../../../domain/errors.js";

/** A prompt reading queued lines. */
export interface LineReader {
  /** Writes `prompt` and resolves the next line; rejects `cancelled` on abort or end of input. */
  ask(prompt: string, signal?: AbortSignal): Promise<string>;
  /** Called on Ctrl-C (terminal or process signal). */
  onInterrupt(handler: () => void): void;
  close(): void;
}

/**
 * Reads lines from `input`, echoing prompts to `output`.
 *
 * @example
 * const reader = createLineReader(process.stdin, process.stdout);
 * const line = await reader.ask("you> ");
 */
export function createLineReader(input: Readable, output: Writable): LineReader {
  const terminal = (input as { isTTY?: boolean }).isTTY === true;
  const rl: Interface = createInterface({ input, output, terminal });
  const lines: string[] = [];
  const waiters: Array<{ resolve(line: string): void; reject(error: Error): void }> = [];
  let ended = false;
  let interrupt: () => void = () => undefined;
  const ending = () => new SteamharnessError("cancelled", "the input ended");
  rl.on("line", (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter.resolve(line);
    else lines.push(line);
  });
  rl.on("close", () => {
    ended = true;
    for (const waiter of waiters.splice(0)) waiter.reject(ending());
  });
  rl.on("SIGINT", () => interrupt());
  const onSignal = () => interrupt();
  process.on("SIGINT", onSignal);
  return {
    ask(prompt, signal) {
      output.write(prompt);
      const queued = lines.shift();
      if (queued !== undefined) {
        if (!terminal) output.write(`${queued}\n`);
        return Promise.resolve(queued);
      }
      if (ended) return Promise.reject(ending());
      return new Promise<string>((resolve, reject) => {
        const waiter = {
          resolve: (line: string) => {
            signal?.removeEventListener("abort", abort);
            if (!terminal) output.write(`${line}\n`);
            resolve(line);
          },
          reject,
        };
        const abort = () => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          reject(new SteamharnessError("cancelled", "the question was cancelled"));
        };
        if (signal?.aborted) return abort();
        signal?.addEventListener("abort", abort, { once: true });
        waiters.push(waiter);
      });
    },
    onInterrupt(handler) {
      interrupt = handler;
    },
    close() {
      process.off("SIGINT", onSignal);
      rl.close();
    },
  };
}
