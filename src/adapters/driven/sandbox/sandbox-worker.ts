/**
 * Entry of a sandbox worker thread (built as dist/sandbox-worker.js; SEC-3, SEC-4). The host
 * starts it with the compiled QuickJS wasm and keeps it warm: a QuickJS instance is prepared
 * before the first snippet arrives, on a wasm memory whose maximum is the snippet limit plus
 * QuickJS's own base, so the heap can never grow past it (QuickJS's `setMemoryLimit` alone does
 * not bound it in this build, see docs/security.md). One snippet at a time; after a snippet whose
 * runtime was freed and whose heap stayed small the same instance serves the next one.
 */
import { parentPort, workerData } from "node:worker_threads";
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSWASMModule } from "quickjs-emscripten";
import { REUSE_MAX_WASM_BYTES, wasmPagesFor, type ParentToWorker, type SandboxWorkerData, type WorkerToParent } from "./sandbox-protocol.js";
import { runSnippet, type SnippetIo } from "./snippet-runner.js";

type Reply = { ok: true; json: string } | { ok: false; message: string };

const port = parentPort;
if (!port) {
  process.stderr.write("[steamharness] [sandbox] sandbox-worker runs as a worker thread of steamharness\n");
  process.exit(1);
}
const { wasmModule, memoryBytes } = workerData as SandboxWorkerData;
const post = (message: WorkerToParent) => port.postMessage(message);

let prepared: { memoryBytes: number; module: Promise<QuickJSWASMModule> } | null = null;
function prepare(limit: number): { memoryBytes: number; module: Promise<QuickJSWASMModule> } {
  const wasmMemory = new WebAssembly.Memory(wasmPagesFor(limit));
  return { memoryBytes: limit, module: newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule, wasmMemory })) };
}
prepared = prepare(memoryBytes);

const replies = new Map<number, (reply: Reply) => void>();
let nextCall = 0;
const io: SnippetIo = {
  log: (line) => post({ type: "log", line }),
  call: (name, args) =>
    new Promise<Reply>((resolve) => {
      const id = nextCall++;
      replies.set(id, resolve);
      post({ type: "call", id, name, args });
    }),
};

port.on("message", (message: ParentToWorker) => {
  if (message.type === "reply") {
    const resolve = replies.get(message.id);
    replies.delete(message.id);
    resolve?.(message.ok ? { ok: true, json: message.json } : { ok: false, message: message.message });
    return;
  }
  void run(message);
});

async function run(request: Extract<ParentToWorker, { type: "run" }>): Promise<void> {
  const ready = prepared && prepared.memoryBytes === request.limits.memoryBytes ? prepared : prepare(request.limits.memoryBytes);
  prepared = null;
  const module = await ready.module;
  post({ type: "started" });
  const { outcome, clean } = await runSnippet(module, request, io);
  const reusable = clean && module.getWasmMemory().buffer.byteLength <= REUSE_MAX_WASM_BYTES;
  if (reusable) prepared = { memoryBytes: ready.memoryBytes, module: Promise.resolve(module) };
  post({ type: "done", outcome, reusable });
}
