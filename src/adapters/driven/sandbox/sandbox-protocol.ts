/**
 * Messages between the host and a sandbox worker thread (SEC-3, SEC-4), and the sizes that may
 * cross between them. Values cross as JSON text, never as structured clones of snippet objects:
 * the worker checks a string's length inside QuickJS before copying it out, so a snippet cannot
 * make the worker or the host hold more than these bounds.
 */
import type { CodeSandboxFailureKind, CodeSandboxLimits } from "../../../ports/code-sandbox.js";

/**
 * The most characters of JSON a snippet may pass as one tool call's arguments. A longer call is
 * refused inside the snippet (it sees an `Error`) before anything is copied out of its heap.
 */
export const MAX_CALL_ARGS_CHARS = 4 * 1024 * 1024;

/**
 * The wasm heap of a QuickJS instance before the snippet allocates anything (its static data,
 * stack and the runtime); the snippet's `memoryBytes` comes on top (see `wasmPagesFor`).
 */
export const QUICKJS_BASE_BYTES = 16 * 1024 * 1024;

/**
 * A worker whose wasm heap grew past this after a snippet is retired rather than reused, so the
 * memory a big snippet took goes back to the system at once instead of at a later collection.
 */
export const REUSE_MAX_WASM_BYTES = 2 * QUICKJS_BASE_BYTES;

/** The worker's own V8 heap, in MiB (its code, the QuickJS glue and bounded JSON strings). */
export const WORKER_HEAP_MB = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 } as const;

/**
 * How long a worker may take to start before the snippet fails (a start is ~30 ms on an idle
 * machine; the time is not the snippet's, so it is not taken from its wall time).
 */
export const WORKER_START_LIMIT_MS = 30_000;

/** Parent thread → worker. */
export type ParentToWorker =
  | { type: "run"; code: string; functions: readonly string[]; limits: CodeSandboxLimits }
  | { type: "reply"; id: number; ok: true; json: string }
  | { type: "reply"; id: number; ok: false; message: string };

/** What a worker is started with: the compiled QuickJS wasm (shared) and the limit to prepare for. */
export interface SandboxWorkerData {
  wasmModule: WebAssembly.Module;
  memoryBytes: number;
}

/** How a snippet ended, from inside the worker (console lines were sent as they came). */
export type WorkerOutcome = { ok: true; json: string } | { ok: false; kind: CodeSandboxFailureKind; message: string };

/**
 * Worker → parent thread. `started`: the snippet begins now (its wall time starts). `reusable`: the
 * worker freed the snippet's heap and may run another one.
 */
export type WorkerToParent =
  | { type: "started" }
  | { type: "log"; line: string }
  | { type: "call"; id: number; name: string; args: string }
  | { type: "done"; outcome: WorkerOutcome; reusable: boolean };

/** The `initial` and `maximum` 64 KiB pages of a QuickJS wasm memory for a snippet limit. */
export function wasmPagesFor(memoryBytes: number): { initial: number; maximum: number } {
  const page = 64 * 1024;
  const initial = QUICKJS_BASE_BYTES / page;
  return { initial, maximum: initial + Math.ceil(Math.max(memoryBytes, page) / page) };
}
