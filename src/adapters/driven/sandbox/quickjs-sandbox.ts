/**
 * The code-sandbox port on QuickJS compiled to WebAssembly (`quickjs-emscripten`), run in worker
 * threads the host can kill (EXT-4, SEC-3, SEC-4). The snippet runs in a separate JavaScript
 * engine inside a wasm heap, so it has no `process`, `require`, modules, network or filesystem to
 * reach — only the host functions bridged in here, as messages. The host's event loop only passes
 * messages: the deadline and an abort terminate the thread at once, whatever the snippet is
 * doing; its heap is capped by the wasm memory's maximum. Loaded lazily through the composition
 * root, only by runs that enable code mode.
 */
import type { Worker } from "node:worker_threads";
import type { JsonValue } from "../../../domain/json.js";
import type { CodeSandbox, CodeSandboxRequest, CodeSandboxResult } from "../../../ports/code-sandbox.js";
import { WORKER_START_LIMIT_MS, type WorkerToParent } from "./sandbox-protocol.js";
import { SandboxPool, type SandboxPoolOptions } from "./sandbox-pool.js";

/** Options of {@link createQuickJsSandbox}. */
export type QuickJsSandboxOptions = SandboxPoolOptions;

const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

/**
 * A code sandbox on QuickJS/wasm in worker threads. Every `run` gets a fresh QuickJS runtime in
 * a warm worker; a worker that was killed (deadline, abort, a host function that rejected), whose
 * heap grew, or that could not free the snippet's runtime is replaced. `close` terminates every
 * worker; idle workers never keep the process alive.
 *
 * @example
 * const sandbox = createQuickJsSandbox();
 * await sandbox.run({ code: "return 1 + 1", functions: [], call: async () => ({ ok: true, value: null }), limits });
 * await sandbox.close?.();
 */
export function createQuickJsSandbox(options: QuickJsSandboxOptions = {}): CodeSandbox {
  const pool = new SandboxPool(options);
  const active = new Set<() => void>();
  return {
    kind: "quickjs",
    run: (request) => runInWorker(pool, request, active),
    async close() {
      for (const cancel of [...active]) cancel();
      await pool.close();
    },
  };
}

function runInWorker(pool: SandboxPool, request: CodeSandboxRequest, active: Set<() => void>): Promise<CodeSandboxResult> {
  const { limits, signal } = request;
  const logs: string[] = [];
  if (signal?.aborted) return Promise.resolve({ ok: false, kind: "cancelled", message: "the snippet was cancelled", logs });
  return new Promise<CodeSandboxResult>((resolve, reject) => {
    let worker: Worker | null = null;
    let done = false;
    let outputChars = 0;
    const finish = (result: CodeSandboxResult | { error: unknown }, reusable = false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(startGuard);
      signal?.removeEventListener("abort", onAbort);
      active.delete(onClose);
      if (worker) {
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        pool.release(worker, reusable);
      }
      if ("error" in result) reject(result.error);
      else resolve(result);
    };
    const fail = (kind: Extract<CodeSandboxResult, { ok: false }>["kind"], message: string) => finish({ ok: false, kind, message, logs });
    // The wall time starts when the worker begins the snippet (a warm worker: at once).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const startGuard = setTimeout(() => fail("error", `the sandbox worker did not start within ${WORKER_START_LIMIT_MS} ms`), WORKER_START_LIMIT_MS);
    const onAbort = () => fail("cancelled", "the snippet was cancelled");
    const onClose = () => fail("cancelled", "the code sandbox was closed");
    signal?.addEventListener("abort", onAbort, { once: true });
    active.add(onClose);

    const onMessage = (message: WorkerToParent) => {
      if (message.type === "started") {
        clearTimeout(startGuard);
        timer = setTimeout(() => fail("timeout", `the snippet exceeded its wall time of ${limits.timeoutMs} ms`), limits.timeoutMs);
      } else if (message.type === "log") {
        // The worker enforces the output limit; the host keeps its own count all the same.
        outputChars += message.line.length + 1;
        if (outputChars > limits.maxOutputChars) return fail("output", `the snippet's output exceeded ${limits.maxOutputChars} characters`);
        logs.push(message.line);
      } else if (message.type === "call") {
        void relayCall(message.id, message.name, message.args);
      } else if (message.outcome.ok) {
        let value: JsonValue;
        try {
          value = JSON.parse(message.outcome.json) as JsonValue;
        } catch {
          return fail("error", "the snippet's result is not JSON");
        }
        finish({ ok: true, value: value ?? null, logs }, message.reusable);
      } else {
        finish({ ok: false, kind: message.outcome.kind, message: message.outcome.message, logs }, message.reusable);
      }
    };
    const onError = (error: Error & { code?: string }) => {
      if (error.code === "ERR_WORKER_OUT_OF_MEMORY") fail("memory", `the snippet exceeded its memory limit of ${mib(limits.memoryBytes)} MiB (the sandbox worker ran out of memory)`);
      else fail("error", `the sandbox worker failed: ${error.message}`);
    };
    const onExit = (code: number) => fail("error", `the sandbox worker exited with code ${code}`);

    async function relayCall(id: number, name: string, args: string): Promise<void> {
      let parsed: JsonValue;
      try {
        parsed = JSON.parse(args) as JsonValue;
      } catch {
        return void worker?.postMessage({ type: "reply", id, ok: false, message: "[codemode] the arguments of a tool call must be JSON" });
      }
      let answer: Awaited<ReturnType<CodeSandboxRequest["call"]>>;
      try {
        answer = await request.call(name, parsed);
      } catch (error) {
        return finish({ error });
      }
      if (done || !worker) return;
      if (!answer.ok) return void worker.postMessage({ type: "reply", id, ok: false, message: answer.message });
      const json = JSON.stringify(answer.value ?? null);
      // What enters the sandbox must fit its heap; a bigger result is refused before it is copied.
      if (json.length > limits.memoryBytes) return void worker.postMessage({ type: "reply", id, ok: false, message: `[codemode] the result of ${name} is ${json.length} characters, more than the snippet's memory limit of ${mib(limits.memoryBytes)} MiB` });
      worker.postMessage({ type: "reply", id, ok: true, json });
    }

    pool.acquire(limits.memoryBytes).then(
      (lent) => {
        if (done) return pool.release(lent, true);
        worker = lent;
        worker.on("message", onMessage);
        worker.on("error", onError);
        worker.on("exit", onExit);
        worker.postMessage({ type: "run", code: request.code, functions: request.functions, limits: { ...limits } });
      },
      (error: unknown) => fail("error", `the sandbox could not start: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
}
