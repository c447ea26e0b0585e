/**
 * The composition root's runtime (ARCH-1, ARCH-6): the one place that names the driven adapters the
 * application uses by default. Each entry builds one (a library factory per call, a CLI command
 * per process) and hands it down through `NodeContext.runtime` or a factory's options; there is
 * no process-wide runtime for a surface to read mid-request. Each adapter
 * with a heavy backend (the provider library, QuickJS, SQLite sessions, the MCP SDK) loads on
 * first use, so importing the root loads none of them (PERF-1).
 */
import { MemoryStorage } from "./memory-storage.js";
import { createMemorySessionBackend } from "./memory-session-backend.js";
import { createMemoryToolPermissions } from "../adapters/driven/memory/memory-tool-permissions.js";
import { createMemoryUserInput } from "../adapters/driven/memory/memory-user-input.js";
import { createMemoryBudgetLedger } from "../adapters/driven/sqlite/memory/memory-stores.js";
import { createKvTokenUsage } from "../adapters/driven/kernel/kv-token-usage.js";
import { createSystemClock } from "../adapters/driven/system/clock.js";
import { createRandomIdSource } from "../adapters/driven/system/id-source.js";
import { createCodingTools } from "../adapters/driven/coding-tools/index.js";
import { createHttpHostBridge } from "../adapters/driven/host-bridge-client/http-host-bridge.js";
import { createNoopTelemetry } from "../adapters/driven/memory/noop-telemetry.js";
import { localTextFiles } from "../adapters/driven/system/text-files.js";
import type { BudgetLedger } from "../ports/budget-ledger.js";
import type { CodeSandbox } from "../ports/code-sandbox.js";
import type { HarnessRuntime } from "../ports/runtime.js";
import type { SessionBackend } from "../ports/session-backend.js";
import type { Storage } from "../ports/storage.js";
import type { Telemetry } from "../ports/telemetry.js";

/** Options of {@link createHarnessRuntime}. */
export interface HarnessRuntimeOptions {
  /** Where runs, model calls and requests are reported (OBS-1); default a no-op. Set here, when the runtime is built, never later. */
  telemetry?: Telemetry;
}

/** The SQLite session backend on a folder, or of explicit files (no folder), loading the SQLite adapter on first use. */
async function sqliteSessions(agentStoreDir?: string): Promise<SessionBackend> {
  const { createSqliteSessionBackend } = await import("../adapters/driven/sqlite/sessions/sqlite-session-backend.js");
  return agentStoreDir === undefined ? createSqliteSessionBackend({ maxIdleSessions: 0 }) : createSqliteSessionBackend({ agentStoreDir });
}

/**
 * A runtime of the library's default adapters. Sessions of non-durable runs, gateway sessions
 * and explicit-file backends are kept per storage object inside this runtime (weakly, so a
 * storage that is dropped frees them); two runtimes share nothing.
 *
 * @example
 * const runtime = createHarnessRuntime();
 * const context = createNodeContext({ projectId: "p1", storage, runtime });
 */
export function createHarnessRuntime(options: HarnessRuntimeOptions = {}): HarnessRuntime {
  const ephemeral = new WeakMap<Storage, SessionBackend>();
  const gateway = new WeakMap<Storage, SessionBackend>();
  const explicitFiles = new WeakMap<Storage, Promise<SessionBackend>>();
  const ledgers = new WeakMap<Storage, BudgetLedger>();
  let sandbox: Promise<CodeSandbox> | null = null;
  const perStorage = <T>(map: WeakMap<Storage, T>, storage: Storage, create: () => T): T => {
    let value = map.get(storage);
    if (value === undefined) {
      value = create();
      map.set(storage, value);
    }
    return value;
  };
  return {
    clock: createSystemClock,
    ids: createRandomIdSource,
    toolPermissions: createMemoryToolPermissions,
    userInput: createMemoryUserInput,
    tokenUsage: createKvTokenUsage,
    storage: () => new MemoryStorage(),
    ephemeralSessions: (storage) => (storage.sessions && !storage.sessions.durable ? storage.sessions : perStorage(ephemeral, storage, () => createMemorySessionBackend())),
    conversationSessions: () => createMemorySessionBackend({ events: "objects" }),
    gatewaySessions: (storage) => perStorage(gateway, storage, () => createMemorySessionBackend()),
    explicitFileSessions: async (storage) => (storage.sessions?.acceptsDatabasePath ? storage.sessions : perStorage(explicitFiles, storage, () => sqliteSessions())),
    sessionsAt: (agentStoreDir) => sqliteSessions(agentStoreDir),
    budgetLedger: (storage) => storage.budgets ?? perStorage(ledgers, storage, createMemoryBudgetLedger),
    async modelPrice(provider, model) {
      const { catalogModelPrice } = await import("../adapters/driven/providers/pi-ai-loader.js");
      return catalogModelPrice(provider, model);
    },
    async providerModel(endpoint) {
      const { createProviderModel } = await import("../adapters/driven/providers/provider-model.js");
      return createProviderModel(endpoint);
    },
    // QuickJS/wasm in worker threads (SEC-3, SEC-4), one sandbox per runtime: its warm worker is
    // unref'd (it never keeps the process alive) and ends with the process.
    codeSandbox() {
      sandbox ??= import("../adapters/driven/sandbox/quickjs-sandbox.js").then(({ createQuickJsSandbox }) => createQuickJsSandbox());
      return sandbox;
    },
    codingTools: createCodingTools,
    directoryExists: async (path) => (await localTextFiles.kind(path)) === "folder",
    async capabilityServer(spec, options) {
      const [{ createCapabilityMcpServer }, { localViewerAssets }] = await Promise.all([import("../adapters/driving/mcp/capability-server.js"), import("../adapters/driven/system/viewer-assets.js")]);
      return createCapabilityMcpServer(spec, { ...options, viewerAssets: localViewerAssets });
    },
    hostBridge: createHttpHostBridge,
    telemetry: options.telemetry ?? createNoopTelemetry(),
  };
}
