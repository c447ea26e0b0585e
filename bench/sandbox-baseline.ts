/**
 * BASELINE COPY for bench/hardening-sandbox.bench.ts: the in-thread sandbox as it was before SEC-3
 * and SEC-4 (src/adapters/driven/sandbox/quickjs-sandbox.ts at f1f6d79), kept only to measure the new one
 * against. Not used by the library; do not fix it.
 *
 * The code-sandbox port on QuickJS compiled to WebAssembly (`quickjs-emscripten`): the snippet
 * runs in a separate JavaScript engine inside a wasm heap, so it has no `process`, `require`,
 * modules, network or filesystem to reach — only the host functions bridged in here. Loaded
 * lazily through the composition root, only by runs that enable code mode.
 */
import { newQuickJSWASMModule, RELEASE_SYNC, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime } from "quickjs-emscripten";
import type { JsonValue } from "../src/domain/json.js";
import type { CodeSandbox, CodeSandboxFailureKind, CodeSandboxRequest, CodeSandboxResult } from "../src/ports/code-sandbox.js";

// Inside the sandbox: `tools.<name>(args)` goes through one bridged function; console output is
// sent out line by line so the output limit can stop a snippet that prints without end.
const PRELUDE = (functions: readonly string[]) => `
const tools = Object.freeze(Object.fromEntries(${JSON.stringify(functions)}.map((name) => [name, async (args = {}) => JSON.parse(await __call(name, JSON.stringify(args)))])));
const __fmt = (value) => typeof value === "string" ? value : (() => { try { return JSON.stringify(value); } catch { return String(value); } })();
const console = Object.freeze({ log: (...a) => __log(a.map(__fmt).join(" ")), info: (...a) => __log(a.map(__fmt).join(" ")), warn: (...a) => __log(a.map(__fmt).join(" ")), error: (...a) => __log(a.map(__fmt).join(" ")) });
globalThis.tools = tools;
globalThis.console = console;
`;

class Stop extends Error {
  constructor(readonly kind: CodeSandboxFailureKind, message: string) {
    super(message);
  }
}

function classify(error: unknown, limits: CodeSandboxRequest["limits"]): { kind: CodeSandboxFailureKind; message: string } {
  const raw = error as { name?: string; message?: string; stack?: string } | string | null;
  const name = typeof raw === "object" && raw ? raw.name ?? "Error" : "Error";
  const message = typeof raw === "object" && raw ? raw.message ?? String(raw) : String(raw);
  if (/interrupted/i.test(message)) return { kind: "timeout", message: `the snippet exceeded its wall time of ${limits.timeoutMs} ms` };
  if (/out of memory/i.test(message) || (name === "RangeError" && /allocation|array buffer|invalid array length/i.test(message))) {
    return { kind: "memory", message: `the snippet exceeded its memory limit of ${Math.round(limits.memoryBytes / 1024 / 1024)} MiB (${name}: ${message})` };
  }
  if (/stack overflow/i.test(message)) return { kind: "memory", message: `the snippet overflowed its stack (${name}: ${message})` };
  return { kind: "error", message: `${name}: ${message}` };
}

/**
 * A code sandbox on QuickJS/wasm. Every `run` gets its own QuickJS runtime with the memory limit,
 * an interrupt handler for the wall time (checked while the snippet computes) and a timer (while
 * it waits for host functions).
 *
 * @example
 * const sandbox = createQuickJsSandbox();
 * await sandbox.run({ code: "return 1 + 1", functions: [], call: async () => ({ ok: true, value: null }), limits });
 */
export function createBaselineQuickJsSandbox(): CodeSandbox {
  return {
    kind: "quickjs",
    async run(request) {
      // A wasm module instance of its own per snippet: a snippet stopped mid-way (limit, pause)
      // leaves live objects that QuickJS refuses to free; its whole instance is then dropped
      // to the garbage collector instead, and no later snippet shares anything with it.
      const QuickJS = await newQuickJSWASMModule(RELEASE_SYNC);
      const runtime = QuickJS.newRuntime();
      const vm = runtime.newContext();
      const state = { clean: false };
      try {
        return await runIn(runtime, vm, request, state);
      } finally {
        if (state.clean) {
          try {
            vm.dispose();
            runtime.dispose();
          } catch {
            /* the instance is dropped either way */
          }
        }
      }
    },
  };
}

async function runIn(runtime: QuickJSRuntime, vm: QuickJSContext, request: CodeSandboxRequest, state: { clean: boolean }): Promise<CodeSandboxResult> {
  const { limits } = request;
  const logs: string[] = [];
  let outputChars = 0;
  let stop: Stop | null = null;
  let fatal: { error: unknown } | null = null;
  const deadline = Date.now() + limits.timeoutMs;
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(1024 * 1024);
  runtime.setInterruptHandler(() => stop !== null || fatal !== null || Date.now() > deadline || request.signal?.aborted === true);

  let wake: () => void = () => {};
  let pending = 0;
  const log = vm.newFunction("__log", (line: QuickJSHandle) => {
    const text = vm.getString(line);
    outputChars += text.length + 1;
    if (outputChars > limits.maxOutputChars) stop ??= new Stop("output", `the snippet's output exceeded ${limits.maxOutputChars} characters`);
    else logs.push(text);
  });
  vm.setProp(vm.global, "__log", log);
  log.dispose();
  const call = vm.newFunction("__call", (nameHandle: QuickJSHandle, argsHandle: QuickJSHandle) => {
    const name = vm.getString(nameHandle);
    const args = JSON.parse(vm.getString(argsHandle)) as JsonValue;
    const deferred = vm.newPromise();
    pending++;
    void request.call(name, args).then(
      (result) => {
        if (!vm.alive) return;
        if (result.ok) {
          const value = vm.newString(JSON.stringify(result.value ?? null));
          deferred.resolve(value);
          value.dispose();
        } else {
          const error = vm.newError(result.message);
          deferred.reject(error);
          error.dispose();
        }
      },
      (error: unknown) => {
        fatal ??= { error };
        if (!vm.alive) return;
        const stopped = vm.newError("stopped by the host");
        deferred.reject(stopped);
        stopped.dispose();
      },
    ).finally(() => {
      pending--;
      if (vm.alive) {
        deferred.dispose();
        runtime.executePendingJobs();
      }
      wake();
    });
    return deferred.handle;
  });
  vm.setProp(vm.global, "__call", call);
  call.dispose();

  const prelude = vm.evalCode(PRELUDE(request.functions), "prelude.js");
  vm.unwrapResult(prelude).dispose();

  const evaluated = vm.evalCode(`(async () => {\n${request.code}\n})()`, "snippet.js");
  if (evaluated.error) {
    const error = vm.dump(evaluated.error);
    evaluated.error.dispose();
    state.clean = stop === null;
    return failure(stop, fatal, classify(error, limits), logs);
  }
  const promiseHandle = evaluated.value;
  const settled = vm.resolvePromise(promiseHandle);
  promiseHandle.dispose();
  runtime.executePendingJobs();
  const done = settled.then((result) => ({ result }));
  const onAbort = () => wake();
  request.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await settle();
  } finally {
    request.signal?.removeEventListener("abort", onAbort);
  }

  async function settle(): Promise<CodeSandboxResult> {
  for (;;) {
    const timeLeft = deadline - Date.now();
    const tick = new Promise<"tick">((resolve) => {
      wake = () => resolve("tick");
      const timer = setTimeout(() => resolve("tick"), Math.max(0, Math.min(timeLeft, 250)));
      timer.unref?.();
    });
    const next = await Promise.race([done, tick]);
    if (fatal) throw (fatal as { error: unknown }).error;
    if (stop) return failure(stop, null, { kind: "error", message: "" }, logs);
    if (request.signal?.aborted) return { ok: false, kind: "cancelled", message: "the snippet was cancelled", logs };
    if (next !== "tick") {
      const { result } = next;
      if (result.error) {
        const error = vm.dump(result.error);
        result.error.dispose();
        state.clean = pending === 0 && stop === null;
        return failure(stop, fatal, classify(error, limits), logs);
      }
      const value = vm.dump(result.value) as JsonValue;
      result.value.dispose();
      state.clean = pending === 0;
      const json = JSON.stringify(value ?? null);
      if (outputChars + json.length > limits.maxOutputChars) return { ok: false, kind: "output", message: `the snippet's output exceeded ${limits.maxOutputChars} characters`, logs };
      return { ok: true, value: value ?? null, logs };
    }
    if (Date.now() > deadline) return { ok: false, kind: "timeout", message: `the snippet exceeded its wall time of ${limits.timeoutMs} ms`, logs };
    runtime.executePendingJobs();
  }
  }
}

function failure(stop: Stop | null, fatal: { error: unknown } | null, found: { kind: CodeSandboxFailureKind; message: string }, logs: string[]): CodeSandboxResult {
  if (fatal) throw fatal.error;
  if (stop) return { ok: false, kind: stop.kind, message: stop.message, logs };
  return { ok: false, kind: found.kind, message: found.message, logs };
}
