/**
 * The host side of the sandbox worker threads (SEC-3, SEC-4): starts them, keeps a few warm and
 * idle (unref'd, so they never keep the process alive), takes back a worker that says it may
 * serve another snippet, and terminates the rest. Threads end with the process, and `close`
 * terminates every one of them.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { SteamharnessError } from "../../../domain/errors.js";
import { moduleRequire, sandboxWorkerScript } from "./sandbox-entry.js";
import { WORKER_HEAP_MB, type SandboxWorkerData } from "./sandbox-protocol.js";

/** Node's global WebAssembly API, typed here: a consumer's lib setting may declare only its types (DX-2). */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }).WebAssembly;

let compiled: Promise<WebAssembly.Module> | null = null;
/** QuickJS's wasm, compiled once per process and shared by every worker. */
function quickJsWasm(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const quickjs = moduleRequire().resolve("quickjs-emscripten");
    const path = createRequire(quickjs).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
    return wasmApi.compile(readFileSync(path));
  })();
  compiled.catch(() => {
    compiled = null;
  });
  return compiled;
}

/** Options of {@link SandboxPool}. */
export interface SandboxPoolOptions {
  /** Idle workers kept started (default 1). */
  warm?: number;
  /** The snippet memory limit warm workers prepare for (default 64 MiB). */
  memoryBytes?: number;
}

/**
 * A pool of sandbox worker threads.
 *
 * @example
 * const pool = new SandboxPool({ warm: 1 });
 * const worker = await pool.acquire(64 * 1024 * 1024);
 * pool.release(worker, true);
 * await pool.close();
 */
export class SandboxPool {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private readonly warm: number;
  private memoryBytes: number;
  private closed = false;

  constructor(options: SandboxPoolOptions = {}) {
    this.warm = options.warm ?? 1;
    this.memoryBytes = options.memoryBytes ?? 64 * 1024 * 1024;
  }

  /** A started worker for one snippet (warm if one is idle), ref'd while it is lent out. */
  async acquire(memoryBytes: number): Promise<Worker> {
    if (this.closed) throw new SteamharnessError("unavailable", "[steamharness] [sandbox] the code sandbox is closed");
    this.memoryBytes = memoryBytes;
    const worker = this.idle.pop() ?? (await this.spawn());
    worker.ref();
    return worker;
  }

  /**
   * Takes back a lent worker: kept idle when it is `reusable` and the pool has room; else it is
   * terminated and, when that leaves fewer idle workers than `warm`, a fresh one is started in
   * the background (after a killed snippet the next one finds a warm worker).
   */
  release(worker: Worker, reusable: boolean): void {
    if (reusable && !this.closed && this.all.has(worker) && this.idle.length < this.warm) {
      worker.unref();
      this.idle.push(worker);
      return;
    }
    this.terminate(worker);
    this.topUp();
  }

  /** Terminates every worker, idle or lent; later `acquire` calls fail. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all([...this.all].map((worker) => this.terminate(worker)));
  }

  /** Workers started and not yet terminated (idle and lent). */
  get size(): number {
    return this.all.size;
  }

  private terminate(worker: Worker): Promise<unknown> {
    this.all.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    return worker.terminate().catch(() => undefined);
  }

  private topUp(): void {
    if (this.closed || this.idle.length >= this.warm) return;
    void this.spawn().then(
      (worker) => {
        if (this.closed || this.idle.length >= this.warm) return void this.terminate(worker);
        worker.unref();
        this.idle.push(worker);
      },
      () => undefined,
    );
  }

  private async spawn(): Promise<Worker> {
    const { script, eval: isEval } = await sandboxWorkerScript();
    const workerData: SandboxWorkerData = { wasmModule: await quickJsWasm(), memoryBytes: this.memoryBytes };
    if (this.closed) throw new SteamharnessError("unavailable", "[steamharness] [sandbox] the code sandbox is closed");
    const worker = new Worker(script, { eval: isEval, workerData, resourceLimits: { ...WORKER_HEAP_MB }, execArgv: [], env: {} });
    worker.unref();
    this.all.add(worker);
    // A worker that dies while idle (or is terminated) leaves the pool; a lent one is reported by its run.
    worker.once("exit", () => {
      this.all.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    });
    worker.on("error", () => undefined);
    return worker;
  }
}
