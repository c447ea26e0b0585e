import type { JsonValue } from "../domain/json.js";

/** The limits of one snippet (EXT-4). */
export interface CodeSandboxLimits {
  /** Wall time in ms, including the time spent in host functions. */
  timeoutMs: number;
  /**
   * Memory the snippet's heap may use, in bytes. A hard bound on what the snippet can make the
   * host hold (SEC-4): the QuickJS sandbox caps its wasm heap at this plus a fixed base.
   */
  memoryBytes: number;
  /** Most characters of console output plus the JSON of the return value. */
  maxOutputChars: number;
}

/** What a host function answers the snippet: a value (JSON), or an error the snippet sees as a thrown `Error`. */
export type CodeSandboxCallResult = { ok: true; value: JsonValue } | { ok: false; message: string };

/** One snippet to run. */
export interface CodeSandboxRequest {
  /** JavaScript, run as the body of an async function: `return` gives the result, `await` works. */
  code: string;
  /** Host functions the snippet may call, as `tools.<name>(args)` (async). */
  functions: readonly string[];
  /**
   * Runs a host function. Resolving `{ ok: false }` throws an `Error` with the message inside the
   * snippet. Rejecting stops the snippet: `run` rejects with that same error (how a nested call
   * that needs a person's approval pauses the whole run).
   */
  call(name: string, args: JsonValue): Promise<CodeSandboxCallResult>;
  limits: CodeSandboxLimits;
  /** Aborting stops the snippet; `run` resolves a `cancelled` failure. */
  signal?: AbortSignal;
}

/** Why a snippet failed: its own error, or a limit it hit. */
export type CodeSandboxFailureKind = "error" | "timeout" | "memory" | "output" | "cancelled";

/** How a snippet ended. `logs` is its console output (also on failure). */
export type CodeSandboxResult =
  | { ok: true; value: JsonValue; logs: string[] }
  | { ok: false; kind: CodeSandboxFailureKind; message: string; logs: string[] };

/**
 * A sandbox for model-written JavaScript (EXT-4): no network, no filesystem, no `process`, no
 * modules — only the host functions named in the request. Contract:
 * - `run` never rejects for anything the snippet does (syntax errors, throws, escape attempts,
 *   endless loops, huge allocations, deep recursion, a result that is not JSON, too much output):
 *   those resolve `{ ok: false, kind }`.
 * - The snippet never blocks the host's event loop, an abort stops it at once, and the wall time
 *   holds whatever the snippet does (SEC-3).
 * - `run` rejects only with an error a host function rejected with (see `call`).
 * - Each `run` gets a fresh heap: nothing leaks from one snippet to the next.
 * - The host process survives every snippet.
 */
export interface CodeSandbox {
  /** A name for diagnostics (`"quickjs"`). */
  readonly kind: string;
  run(request: CodeSandboxRequest): Promise<CodeSandboxResult>;
  /**
   * Stops every snippet still running (each resolves `cancelled`) and frees what the sandbox
   * holds (worker threads); later `run` calls resolve an error. Idempotent. Optional: a sandbox
   * that holds nothing between runs need not have it.
   */
  close?(): Promise<void>;
}
