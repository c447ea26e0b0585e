/**
 * Runs one snippet in a QuickJS/wasm instance, inside a sandbox worker thread (EXT-4, SEC-3,
 * SEC-4). The worker's host-side code never copies an unbounded value out of the wasm heap: a
 * string's length is read inside QuickJS first (console lines, tool-call arguments, the returned
 * JSON, error texts), and the rest is refused there. Deadlines and aborts are not handled here:
 * the host terminates the whole thread.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten";
import type { CodeSandboxFailureKind, CodeSandboxLimits } from "../../../ports/code-sandbox.js";
import { MAX_CALL_ARGS_CHARS, QUICKJS_BASE_BYTES, type WorkerOutcome } from "./sandbox-protocol.js";

/** What the snippet reaches outside QuickJS: console lines and host tool calls (JSON text). */
export interface SnippetIo {
  log(line: string): void;
  call(name: string, args: string): Promise<{ ok: true; json: string } | { ok: false; message: string }>;
}

/** One snippet: its code, the names of its `tools.<name>`, its limits. */
export interface SnippetRequest {
  code: string;
  functions: readonly string[];
  limits: CodeSandboxLimits;
}

// Inside the sandbox: `tools.<name>(args)` goes through one bridged function; console output is
// sent out line by line so the output limit can stop a snippet that prints without end. `__json`
// and `__describe` are global constants the snippet can neither reassign nor replace.
const PRELUDE = (functions: readonly string[]) => `
const tools = Object.freeze(Object.fromEntries(${JSON.stringify(functions)}.map((name) => [name, async (args = {}) => JSON.parse(await __call(name, JSON.stringify(args)))])));
const __fmt = (value) => typeof value === "string" ? value : (() => { try { return JSON.stringify(value); } catch { return String(value); } })();
const console = Object.freeze({ log: (...a) => __log(a.map(__fmt).join(" ")), info: (...a) => __log(a.map(__fmt).join(" ")), warn: (...a) => __log(a.map(__fmt).join(" ")), error: (...a) => __log(a.map(__fmt).join(" ")) });
const __json = JSON.stringify;
const __describe = (e) => { try { const o = typeof e === "object" && e !== null; return __json([String(o ? e.name ?? "Error" : "Error").slice(0, 200), String(o ? e.message ?? "" : e).slice(0, 4000), e === null]); } catch { return '["Error","(an error that cannot be read)",false]'; } };
globalThis.tools = tools;
globalThis.console = console;
`;

const wrap = (code: string) => `(async () => { const value = await (async () => {\n${code}\n})(); return value === undefined ? "null" : __json(value); })()`;

/** A QuickJS string's length, read inside QuickJS (`getLength` answers only for objects); fails closed. */
function stringLength(vm: QuickJSContext, handle: QuickJSHandle): number {
  if (vm.typeof(handle) !== "string") return Number.POSITIVE_INFINITY;
  const length = vm.getProp(handle, "length");
  const value = vm.getNumber(length);
  length.dispose();
  return Number.isFinite(value) ? value : Number.POSITIVE_INFINITY;
}

class Stop {
  constructor(readonly kind: CodeSandboxFailureKind, readonly message: string) {}
}

/** The snippet's failure kind and message for an error's name and message (QuickJS's texts). */
export function classify(name: string, message: string, limits: CodeSandboxLimits): { kind: CodeSandboxFailureKind; message: string } {
  if (/out of memory/i.test(message) || (name === "RangeError" && /allocation|array buffer|invalid array length/i.test(message))) {
    return { kind: "memory", message: `the snippet exceeded its memory limit of ${Math.round(limits.memoryBytes / 1024 / 1024)} MiB (${name}: ${message})` };
  }
  if (/stack overflow|call stack size/i.test(message)) return { kind: "memory", message: `the snippet overflowed its stack (${name}: ${message})` };
  return { kind: "error", message: `${name}: ${message}` };
}

/**
 * Runs `request` in a fresh QuickJS runtime of `module` (whose wasm memory is capped, see
 * `wasmPagesFor`). Resolves how it ended and whether the runtime was freed (`clean`: the module
 * may serve another snippet). Never rejects: a fault of the engine itself (a wasm stack overflow,
 * an allocation failure inside the glue) is a failure of the snippet with `clean: false`.
 */
export async function runSnippet(module: QuickJSWASMModule, request: SnippetRequest, io: SnippetIo): Promise<{ outcome: WorkerOutcome; clean: boolean }> {
  const memory = module.getWasmMemory();
  // An error QuickJS cannot even describe, with the heap grown past half its cap, is memory:
  // emscripten grows the heap in steps, so a failed step can stop short of the cap itself.
  const atCap = () => memory.buffer.byteLength >= QUICKJS_BASE_BYTES + request.limits.memoryBytes / 2;
  try {
    return await runIn(module, request, io);
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (/call stack size/i.test(text)) return { outcome: { ok: false, kind: "memory", message: `the snippet overflowed its stack (${text})` }, clean: false };
    if (atCap()) return { outcome: { ok: false, ...classify("InternalError", "out of memory", request.limits) }, clean: false };
    return { outcome: { ok: false, kind: "error", message: `the sandbox failed: ${text}` }, clean: false };
  }

  async function runIn(module: QuickJSWASMModule, { code, functions, limits }: SnippetRequest, io: SnippetIo): Promise<{ outcome: WorkerOutcome; clean: boolean }> {
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(1024 * 1024);
    let stop: Stop | null = null;
    let onStop: () => void = () => {};
    const stopWith = (kind: CodeSandboxFailureKind, message: string) => {
      stop ??= new Stop(kind, message);
      onStop();
    };
    runtime.setInterruptHandler(() => stop !== null);
    const vm = runtime.newContext();
    let outputChars = 0;
    let pending = 0;

    const log = vm.newFunction("__log", (line: QuickJSHandle) => {
      if (vm.typeof(line) !== "string") return;
      const length = stringLength(vm, line);
      if (outputChars + length + 1 > limits.maxOutputChars) return stopWith("output", `the snippet's output exceeded ${limits.maxOutputChars} characters`);
      outputChars += length + 1;
      io.log(vm.getString(line));
    });
    vm.setProp(vm.global, "__log", log);
    log.dispose();
    const call = vm.newFunction("__call", (nameHandle: QuickJSHandle, argsHandle: QuickJSHandle) => {
      const deferred = vm.newPromise();
      const refuse = (message: string) => {
        const error = vm.newError(message);
        deferred.reject(error);
        error.dispose();
        return deferred.handle;
      };
      if (stringLength(vm, nameHandle) > 256 || vm.typeof(argsHandle) !== "string") return refuse("[codemode] a tool call needs a tool name and JSON arguments");
      const argsLength = stringLength(vm, argsHandle);
      if (argsLength > MAX_CALL_ARGS_CHARS) return refuse(`[codemode] the arguments of a tool call are ${argsLength} characters of JSON; at most ${MAX_CALL_ARGS_CHARS} may leave the sandbox`);
      pending++;
      void io.call(vm.getString(nameHandle), vm.getString(argsHandle)).then((reply) => {
        pending--;
        if (!vm.alive) return;
        try {
          const value = reply.ok ? vm.newString(reply.json) : vm.newError(reply.message);
          if (reply.ok) deferred.resolve(value);
          else deferred.reject(value);
          value.dispose();
          deferred.dispose();
          runtime.executePendingJobs();
        } catch {
          stopWith("memory", `the snippet exceeded its memory limit of ${Math.round(limits.memoryBytes / 1024 / 1024)} MiB (a tool result did not fit)`);
        }
      });
      return deferred.handle;
    });
    vm.setProp(vm.global, "__call", call);
    call.dispose();
    vm.unwrapResult(vm.evalCode(PRELUDE(functions), "prelude.js")).dispose();
    const describe = vm.unwrapResult(vm.evalCode("__describe", "describe.js"));

    const failure = (error: QuickJSHandle): { outcome: WorkerOutcome; clean: boolean } => {
      const described = vm.callFunction(describe, vm.undefined, error);
      error.dispose();
      let found: { kind: CodeSandboxFailureKind; message: string };
      if (described.error) {
        described.error.dispose();
        found = atCap() ? classify("InternalError", "out of memory", limits) : { kind: "error", message: "the snippet failed with an error that cannot be read" };
      } else {
        const [name, message, thrownNull] = JSON.parse(vm.getString(described.value)) as [string, string, boolean];
        described.value.dispose();
        // QuickJS throws `null` when it cannot even allocate the "out of memory" error.
        found = thrownNull && atCap() ? classify("InternalError", "out of memory", limits) : classify(name, message, limits);
      }
      const ended: Stop | null = stop;
      return finish(ended ? { ok: false, kind: ended.kind, message: ended.message } : { ok: false, ...found });
    };
    const finish = (outcome: WorkerOutcome): { outcome: WorkerOutcome; clean: boolean } => {
      if (stop !== null || pending > 0) return { outcome, clean: false };
      describe.dispose();
      vm.dispose();
      runtime.dispose();
      return { outcome, clean: true };
    };

    const evaluated = vm.evalCode(wrap(code), "snippet.js");
    if (evaluated.error) return failure(evaluated.error);
    const settled = vm.resolvePromise(evaluated.value);
    evaluated.value.dispose();
    runtime.executePendingJobs();
    const stopped = new Promise<"stopped">((resolve) => {
      onStop = () => resolve("stopped");
      if (stop) resolve("stopped");
    });
    const result = await Promise.race([settled, stopped]);
    const ended: Stop | null = stop;
    if (result === "stopped" || ended) {
      if (result !== "stopped") (result.error ?? result.value).dispose();
      return { outcome: { ok: false, kind: ended!.kind, message: ended!.message }, clean: false };
    }
    if (result.error) return failure(result.error);
    const value = result.value;
    const isString = vm.typeof(value) === "string";
    const length = isString ? stringLength(vm, value) : 4;
    if (length > limits.maxOutputChars - outputChars) {
      value.dispose();
      return finish({ ok: false, kind: "output", message: `the snippet's output exceeded ${limits.maxOutputChars} characters` });
    }
    const json = isString ? vm.getString(value) : "null";
    value.dispose();
    return finish({ ok: true, json });
  }
}
