import { Worker } from "node:worker_threads";
import { SteamharnessError } from "../../../domain/errors.js";

// The worker's script, evaluated as CommonJS (no file to locate from src/, dist/ or a bundle).
// It compiles the pattern once, then answers each file with its hits.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
let regex = null;
parentPort.on("message", (message) => {
  if (message.type === "pattern") {
    regex = new RegExp(message.source, message.flags);
    return;
  }
  const text = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength).toString("utf8");
  const hits = [];
  if (!text.includes("\\u0000")) {
    const lines = text.split("\\n");
    for (let i = 0; i < lines.length && hits.length < message.limit; i++) {
      if (regex.test(lines[i])) hits.push(message.relative + ":" + (i + 1) + ": " + lines[i].slice(0, 500));
    }
  }
  parentPort.postMessage(hits);
});
`;

// Idle workers kept for the next grep (unref'd, so they never keep the host alive). A worker that
// was stopped mid-match is terminated, never returned here.
const MAX_IDLE = 2;
const idle: Worker[] = [];

function spawnWorker(): Worker {
  const worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 256 } });
  // Always listened to: an 'error' without a listener would be thrown in the host.
  worker.on("error", () => undefined);
  worker.once("exit", () => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
  });
  return worker;
}

/** Options of {@link startLineMatcher}. */
export interface LineMatcherOptions {
  /** Hard deadline of the whole search in ms; the worker is terminated when it passes. */
  timeoutMs: number;
  /** Aborting terminates the worker at once and rejects with `cancelled`. */
  signal?: AbortSignal;
}

/** Matches a regular expression against files' lines off the host's event loop (SEC-3). */
export interface LineMatcher {
  /**
   * The lines of `bytes` (a file's UTF-8 content; transferred, unusable afterwards) that match, as
   * `relative:line: text`, at most `limit`; none for a file containing NUL. Rejects with `timeout`
   * once the deadline passes and `cancelled` on abort, even while the regex is still running.
   */
  match(relative: string, bytes: Uint8Array, limit: number): Promise<string[]>;
  /** Ends the search: the worker goes back to the pool, or is gone if it was stopped. Idempotent. */
  close(): void;
}

/**
 * Starts a search for `source` (an already validated pattern) in a worker thread. The model's
 * regex may backtrack for hours (`^(a+)+$`); the host keeps running, and a deadline or abort
 * terminates the worker, which stops the regex wherever it is.
 *
 * @example
 * const matcher = startLineMatcher("needle", "i", { timeoutMs: 10_000, signal });
 * try { hits = await matcher.match("a.ts", bytes, 100); } finally { matcher.close(); }
 */
export function startLineMatcher(source: string, flags: string, options: LineMatcherOptions): LineMatcher {
  const worker = idle.pop() ?? spawnWorker();
  worker.ref();
  let ended: SteamharnessError | null = null;
  let pending: { resolve: (hits: string[]) => void; reject: (error: unknown) => void } | null = null;
  const detach = () => {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    worker.off("message", onMessage);
    worker.off("error", onError);
    worker.off("exit", onExit);
  };
  const stop = (error: SteamharnessError) => {
    if (ended) return;
    ended = error;
    detach();
    void worker.terminate();
    pending?.reject(error);
    pending = null;
  };
  const onAbort = () => stop(new SteamharnessError("cancelled", "[steamharness] [coding-tools] grep: cancelled"));
  const onMessage = (hits: string[]) => {
    const waiting = pending;
    pending = null;
    waiting?.resolve(hits);
  };
  const onError = (cause: unknown) => stop(new SteamharnessError("internal", `[steamharness] [coding-tools] grep worker failed: ${(cause as Error).message}`, { cause }));
  const onExit = () => stop(new SteamharnessError("internal", "[steamharness] [coding-tools] grep worker exited"));
  const timer = setTimeout(
    () => stop(new SteamharnessError("timeout", `[steamharness] [coding-tools] grep: the search ran past ${options.timeoutMs} ms and was stopped; use a simpler pattern (nested quantifiers like (a+)+ backtrack), literal: true, or a narrower path or glob`, { data: { timeoutMs: options.timeoutMs } })),
    options.timeoutMs,
  );
  worker.on("message", onMessage);
  worker.on("error", onError);
  worker.on("exit", onExit);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  else worker.postMessage({ type: "pattern", source, flags });
  return {
    match(relative, bytes, limit) {
      if (ended) return Promise.reject(ended);
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        worker.postMessage({ type: "file", relative, bytes, limit }, [bytes.buffer as ArrayBuffer]);
      });
    },
    close() {
      if (ended) return;
      ended = new SteamharnessError("internal", "[steamharness] [coding-tools] grep matcher used after close");
      detach();
      if (idle.length < MAX_IDLE) {
        worker.unref();
        idle.push(worker);
      } else void worker.terminate();
    },
  };
}
