/**
 * `steamharness gateway <project-dir>` (GW-1 … GW-4): serves a conversation project as an
 * OpenAI-compatible HTTP API until SIGINT/SIGTERM. The token comes from the environment variable
 * named by `--token-env` (default `STEAMHARNESS_GATEWAY_TOKEN`); when it is unset a random token
 * is generated and printed once on stderr. The project's KV, knowledge and files live under the
 * data dir, as for `steamharness chat`; gateway sessions stay in memory (SES-6), and the chats of
 * the UI chat route (`/v1/ui/chat`) are durable conversations in the project's session folder.
 */
import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import type { AgentNodeOptions } from "../../../app/agent-node/create-agent-node.js";
import type { ApprovalSweeper } from "../../../app/approvals/approval-sweeper.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { ApprovalStore } from "../../../ports/approval-store.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import { addEscalationWebhookOptions, approvalSweepMs, escalationWebhookFrom, type EscalationWebhookFlags } from "../shared/escalation-webhook-option.js";
import type { GatewayRateLimit } from "./gateway-http.js";
import { keyStoreLocation, registerGatewayKeysCommand, withKeyStoreOptions, type GatewayKeyStoreFlags } from "./gateway-keys-command.js";

/** The default variable holding the gateway's bearer token. */
export const GATEWAY_TOKEN_ENV = "STEAMHARNESS_GATEWAY_TOKEN";

/** Options of {@link runGatewayCommand}. */
export interface GatewayCommandOptions {
  projectDir: string;
  port?: number;
  /** The address to bind (`--host`; default `127.0.0.1`). */
  hostname?: string;
  tokenEnv?: string;
  dataDir?: string;
  /** Where the project's durable sessions are kept (default `<projectDir>/.workflow/agents`, SES-10). */
  agentStoreDir?: string;
  modelId?: string;
  rateLimit?: GatewayRateLimit | false;
  maxBodyBytes?: number;
  /** Bytes all kept conversations may hold together (default 256 MiB, SEC-7). */
  maxHeldBytes?: number;
  /** Host names served besides loopback and the bound address (SEC-7). */
  allowedHosts?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the address (and a generated token) are printed (default stderr). */
  log?: (line: string) => void;
  /**
   * BUD-4: accept the API keys of the key store (`--keys`; implied by `store` or `postgres`). The
   * token is then accepted only when its variable is set (no token is generated).
   */
  keys?: boolean;
  /** The key store's SQLite directory (default `<data-dir>/gateway`). */
  store?: string;
  /** The key store's PostgreSQL URL (shared by hosts on other machines). */
  postgres?: string;
  postgresSchema?: string;
  /** How long a verified key is trusted (the revocation bound; default 2000 ms). */
  keyCacheMs?: number;
  /** Runs executed at once; more wait in a fair queue across tenants (BUD-5; default no limit). */
  maxConcurrentRuns?: number;
  /**
   * UI-6: serve the browser chat page at `/` (`--ui [dir]`): `true` for the package's
   * examples/web-chat, or a folder holding index.html and main.tsx.
   */
  ui?: boolean | string;
  /**
   * Issue 47 (`--approval-policy <file>`): the runs' tool approvals are governed by this policy;
   * requests, decisions and the audit chain go to the project storage directory's store.sqlite.
   */
  approvalPolicy?: string;
  /** GOV-3 (`--escalation-webhook <url>`): escalations are POSTed here, HMAC-signed with the secret of `escalationWebhookSecretFile` or the environment. */
  escalationWebhook?: string;
  /** The file holding the webhook's HMAC secret (default: STEAMHARNESS_ESCALATION_WEBHOOK_SECRET). */
  escalationWebhookSecretFile?: string;
  /** Resolves when the gateway should stop (default SIGINT or SIGTERM). */
  until?: Promise<void>;
}

const untilSignal = (): Promise<void> =>
  new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });

/**
 * Loads the project, starts the gateway, prints its address, and serves until stopped.
 *
 * @example
 * await runGatewayCommand({ projectDir: "./examples/assistant", port: 8787 });
 */
export async function runGatewayCommand(options: GatewayCommandOptions, services: SurfaceServices): Promise<void> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const tokenEnv = options.tokenEnv ?? GATEWAY_TOKEN_ENV;
  const given = env[tokenEnv];
  if (given !== undefined && !/^[\x21-\x7e]{16,}$/.test(given)) {
    throw new SteamharnessError("input_validation", `[steamharness] [gateway] ${tokenEnv} must hold at least 16 printable ASCII characters`, { field: "token-env" });
  }
  const useKeys = options.keys === true || options.store !== undefined || options.postgres !== undefined;
  const location = useKeys ? keyStoreLocation({ ...(options.store === undefined ? {} : { store: options.store }), ...(options.postgres === undefined ? {} : { postgres: options.postgres }), ...(options.postgresSchema === undefined ? {} : { postgresSchema: options.postgresSchema }), ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }) }) : null;
  // With keys, the single token is only accepted when the operator set one.
  const token = given ?? (useKeys ? undefined : randomBytes(24).toString("base64url"));
  const [{ openConversationProject }, { createAgentConfigurationLoader }, { startGateway }] = await Promise.all([
    import("../../../app/conversation/conversation-project.js"),
    import("../../../domain/configuration/run-snapshot.js"),
    import("./gateway.js"),
  ]);
  const onEscalation = await escalationWebhookFrom(options, services, env);
  const sweepMs = options.approvalPolicy === undefined ? undefined : approvalSweepMs(env);
  const project = await openConversationProject(options.projectDir, services.textFiles);
  // Checked before anything is opened: a bad policy file leaves nothing to close.
  const policy = options.approvalPolicy === undefined ? undefined : await (await import("../../../app/approvals/governed-tool-permissions.js")).readApprovalPolicyFile(services.textFiles, resolve(options.approvalPolicy), "--approval-policy");
  const page = options.ui === undefined || options.ui === false ? undefined : await services.webChatPage(options.ui === true ? undefined : resolve(options.ui));
  const keyStore = location ? await services.keyStore(location) : null;
  // OBS-3: an OTLP endpoint in the environment turns request and run spans on (the runtime's telemetry).
  const runtime = await services.runtime();
  const dataDir = resolve(options.dataDir ?? join(homedir(), ".steamharness"));
  // Gateway runs carry host input and stay in memory (SES-6); a conversation's durable sessions are
  // project-local, the same folder `chat`, `run` and `mcp` use (SES-10).
  const storeDirectory = join(dataDir, "projects", project.manifest.id);
  const storage = await services.localStorage({ directory: storeDirectory, sessionFolder: services.sessionFolderOf(options.projectDir, options.agentStoreDir) });
  // CFG-4: the configuration server instead of the local store when a server login resolves.
  const choice = await services.projectConfiguration({ dataDir, env: { ...env } }).catch(async (error: unknown) => {
    await storage.close();
    await keyStore?.close();
    throw error;
  });
  const configurations = choice.store;
  let approvalStore: ApprovalStore | undefined;
  let sweeper: ApprovalSweeper | undefined;
  try {
    const agent: AgentNodeOptions = {};
    if (project.executor.agent.configuration === undefined && project.executor.agent.models === undefined) {
      const systemApiKey = choice.systemApiKey;
      agent.configuration = createAgentConfigurationLoader({
        store: configurations,
        clock: runtime.clock(),
        resolveApiKey: (ref) => env[ref],
        ...(systemApiKey === undefined ? {} : { resolveSystemApiKey: () => systemApiKey }),
      });
    }
    const hostname = options.hostname ?? "127.0.0.1";
    approvalStore = policy ? await services.approvalStore({ directory: storeDirectory }) : undefined;
    const approvals = policy && approvalStore ? (await import("../../../app/approvals/governed-tool-permissions.js")).createGovernedToolPermissions({ policy, store: approvalStore, clock: runtime.clock(), ...(onEscalation ? { onEscalation } : {}) }) : undefined;
    // GOV-3: escalations and expiries on time, even when no client asks again.
    sweeper = approvals && (await import("../../../app/approvals/approval-sweeper.js")).startApprovalSweeper(approvals, { intervalMs: sweepMs, onError: (error) => log(`approvals: sweep failed: ${error instanceof Error ? error.message : String(error)}`) });
    const gateway = await startGateway({
      project,
      agent,
      storage,
      ...(token === undefined ? {} : { token }),
      ...(keyStore ? { apiKeys: keyStore.keys, tenantBudgets: keyStore.budgets } : {}),
      ...(options.keyCacheMs === undefined ? {} : { keyCacheMs: options.keyCacheMs }),
      ...(options.maxConcurrentRuns === undefined ? {} : { maxConcurrentRuns: options.maxConcurrentRuns }),
      ...(options.port === undefined ? {} : { port: options.port }),
      hostname,
      ...(options.modelId === undefined ? {} : { modelId: options.modelId }),
      ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
      ...(options.maxHeldBytes === undefined ? {} : { maxHeldBytes: options.maxHeldBytes }),
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      ...(page === undefined ? {} : { page }),
      ...(approvals ? { approvals } : {}),
      // DX-9: one line per request and one per failure, on the same stream as the address.
      log,
    }, runtime);
    // DX-8: a wildcard address is where the gateway listens, not a URL a client can use.
    const everywhere = hostname === "0.0.0.0" || hostname === "::";
    const url = everywhere ? `http://127.0.0.1:${gateway.port}/v1` : gateway.url;
    log(`steamharness gateway: ${project.manifest.name ?? project.manifest.id} at ${url} (model "${gateway.modelId}")`);
    // DX-13: which configuration store the gateway's runs read.
    log(await choice.describe());
    if (policy) log(`approvals: governed by ${resolve(options.approvalPolicy!)} (audit: steamharness audit export --store ${storeDirectory})`);
    if (page) log(`chat page: ${url.replace(/\/v1$/, "/")}#token=<token>`);
    if (everywhere) log(`warning: listening on every interface (--host ${hostname}): any machine that can reach port ${gateway.port} may call the gateway; the bearer token is its only guard`);
    if (location) log(`API keys: ${location.postgres === undefined ? location.directory : "PostgreSQL"} (steamharness gateway keys add --tenant <id>)`);
    if (token !== undefined) log(given === undefined ? `token (generated; set ${tokenEnv} to choose one): ${token}` : `token: from ${tokenEnv}`);
    try {
      await (options.until ?? untilSignal());
    } finally {
      await gateway.close();
    }
  } finally {
    await configurations.close?.();
    await storage.close();
    await sweeper?.stop();
    await approvalStore?.close();
    await keyStore?.close();
    await services.shutdown();
  }
}

const integer = (name: string, min: number) => (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) throw new SteamharnessError("input_validation", `--${name} must be an integer ≥ ${min}`, { field: name });
  return parsed;
};

/**
 * Registers `steamharness gateway <project-dir> [--port] [--host] [--token-env NAME] …`.
 *
 * @example
 * registerGatewayCommand(program, services);
 */
export function registerGatewayCommand(program: Command, services: SurfaceServices): void {
  const gateway = program.command("gateway");
  gateway
    .description("serve a conversation project as an OpenAI-compatible API (Responses and Chat Completions)")
    .argument("<project-dir>", "a conversation project folder (package.json with projectType \"conversation\")")
    .option("--port <port>", "port to listen on (0 picks a free one)", integer("port", 0), 8787)
    .option("--host <host>", "address to bind (anything but 127.0.0.1 exposes the gateway beyond this machine)", "127.0.0.1")
    .option("--token-env <name>", `environment variable holding the bearer token (default ${GATEWAY_TOKEN_ENV}; unset: a random token is printed)`)
    .option("--model-id <id>", "the model id clients name (default the project's name)")
    .option("--rate-limit <n>", "requests per minute for the token, and per address for failed auth (default 600; 0 turns it off)", integer("rate-limit", 0))
    .option("--max-body-bytes <n>", "largest request body (default 1048576)", integer("max-body-bytes", 1))
    .option("--max-held-bytes <n>", "bytes all kept conversations may hold; least recently used evicted (default 268435456)", integer("max-held-bytes", 0))
    .option("--allowed-host <name>", "a Host/Origin name served besides loopback and --host (repeatable)", (value: string, previous: string[] = []) => [...previous, value])
    .option("--agent-store-dir <dir>", "where the project's sessions are kept (default <project-dir>/.workflow/agents)")
    .option("--ui [dir]", "serve a browser chat page at / (default the package's examples/web-chat; needs esbuild, react and @ai-sdk/react)")
    .option("--approval-policy <file>", "govern tool approvals by this approval policy (JSON, docs/approvals.md); the audit log goes to the project's store directory (steamharness audit)");
  withKeyStoreOptions(addEscalationWebhookOptions(gateway))
    .option("--keys", "accept the API keys of the key store (implied by --store or --postgres); the token then only when its variable is set")
    .option("--key-cache-ms <ms>", "how long a verified key is trusted: the bound within which a revocation reaches this host (default 2000)", integer("key-cache-ms", 0))
    .option("--max-concurrent-runs <n>", "runs executed at once; more wait, tenants taking turns (default no limit)", integer("max-concurrent-runs", 1))
    .action(async (projectDir: string, flags: GatewayKeyStoreFlags & { keys?: boolean; keyCacheMs?: number; maxConcurrentRuns?: number; port: number; host: string; tokenEnv?: string; modelId?: string; rateLimit?: number; maxBodyBytes?: number; maxHeldBytes?: number; allowedHost?: string[]; dataDir?: string; agentStoreDir?: string; ui?: boolean | string } & EscalationWebhookFlags) => {
      await runGatewayCommand({
        projectDir,
        port: flags.port,
        hostname: flags.host,
        ...(flags.tokenEnv === undefined ? {} : { tokenEnv: flags.tokenEnv }),
        ...(flags.modelId === undefined ? {} : { modelId: flags.modelId }),
        ...(flags.rateLimit === undefined ? {} : { rateLimit: flags.rateLimit === 0 ? false : { requests: flags.rateLimit, windowMs: 60_000 } }),
        ...(flags.maxBodyBytes === undefined ? {} : { maxBodyBytes: flags.maxBodyBytes }),
        ...(flags.maxHeldBytes === undefined ? {} : { maxHeldBytes: flags.maxHeldBytes }),
        ...(flags.allowedHost === undefined ? {} : { allowedHosts: flags.allowedHost }),
        ...(flags.dataDir === undefined ? {} : { dataDir: flags.dataDir }),
        ...(flags.agentStoreDir === undefined ? {} : { agentStoreDir: flags.agentStoreDir }),
        ...(flags.ui === undefined ? {} : { ui: flags.ui }),
        ...(flags.approvalPolicy === undefined ? {} : { approvalPolicy: flags.approvalPolicy }),
        ...(flags.escalationWebhook === undefined ? {} : { escalationWebhook: flags.escalationWebhook }),
        ...(flags.escalationWebhookSecretFile === undefined ? {} : { escalationWebhookSecretFile: flags.escalationWebhookSecretFile }),
        ...(flags.keys ? { keys: true } : {}),
        ...(flags.store === undefined ? {} : { store: flags.store }),
        ...(flags.postgres === undefined ? {} : { postgres: flags.postgres }),
        ...(flags.postgresSchema === undefined ? {} : { postgresSchema: flags.postgresSchema }),
        ...(flags.keyCacheMs === undefined ? {} : { keyCacheMs: flags.keyCacheMs }),
        ...(flags.maxConcurrentRuns === undefined ? {} : { maxConcurrentRuns: flags.maxConcurrentRuns }),
      }, services);
    });
  registerGatewayKeysCommand(gateway, services);
}
