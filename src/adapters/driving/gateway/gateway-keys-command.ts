/**
 * `steamharness gateway keys add|list|revoke` (BUD-4): the API keys and tenants of the gateway, in
 * the key store every gateway host shares — a SQLite store directory (`--store`, default
 * `<data-dir>/gateway`) or a PostgreSQL database (`--postgres`). `add` prints the secret once, on
 * stdout; nothing else ever shows it.
 */
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { SteamharnessError } from "../../../domain/errors.js";
import { defaultKeyStoreDirectory } from "../shared/key-store-directory.js";
import type { ApiKeyRecord, ApiKeyStore, ApiTenantLimits } from "../../../ports/api-keys.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";

/** Where the gateway's keys are kept: flags shared by `gateway --keys` and `gateway keys …`. */
export interface GatewayKeyStoreFlags {
  store?: string;
  postgres?: string;
  postgresSchema?: string;
  dataDir?: string;
}

/** The key store location of the flags; throws `input_validation` for a bad URL or conflicting flags. */
export function keyStoreLocation(flags: GatewayKeyStoreFlags): { directory: string; postgres?: string; schema?: string } {
  if (flags.postgres !== undefined) {
    if (!(URL.canParse(flags.postgres) && /^postgres(ql)?:$/.test(new URL(flags.postgres).protocol))) {
      throw new SteamharnessError("input_validation", "[steamharness] [gateway] --postgres must be a postgres:// or postgresql:// URL", { field: "--postgres" });
    }
    if (flags.store !== undefined) throw new SteamharnessError("input_validation", "[steamharness] [gateway] give --store or --postgres, not both", { field: "--store" });
  } else if (flags.postgresSchema !== undefined) throw new SteamharnessError("input_validation", "[steamharness] [gateway] --postgres-schema only applies with --postgres", { field: "--postgres-schema" });
  return {
    directory: flags.store === undefined ? defaultKeyStoreDirectory(flags.dataDir) : resolve(flags.store),
    ...(flags.postgres === undefined ? {} : { postgres: flags.postgres }),
    ...(flags.postgresSchema === undefined ? {} : { schema: flags.postgresSchema }),
  };
}

const count = (name: string) => (value: string): number => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new SteamharnessError("input_validation", `[steamharness] [gateway] --${name} must be an integer ≥ 1`, { field: `--${name}` });
  return parsed;
};
const usd = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new SteamharnessError("input_validation", "[steamharness] [gateway] --budget-usd must be a number > 0", { field: "--budget-usd" });
  return parsed;
};

/**
 * Adds the key-store flags to a command. Commander hands options it meets after `gateway` to the
 * `gateway` command too, so the key commands read them with `optsWithGlobals()`.
 */
export function withKeyStoreOptions(command: Command): Command {
  return command
    .option("--store <dir>", "the SQLite store directory of the keys (default <data-dir>/gateway)")
    .option("--postgres <url>", "keep keys, tenant limits and budgets in this PostgreSQL database (postgres://…), shared by every gateway host")
    .option("--postgres-schema <name>", "with --postgres: the schema (default steamharness)")
    .option("--data-dir <dir>", "root of local data (default ~/.steamharness)");
}

const row = (key: ApiKeyRecord): string => [key.id, key.tenantId, new Date(key.createdAt).toISOString(), key.revokedAt === null ? "-" : new Date(key.revokedAt).toISOString()].join("\t");

/** How the key commands reach the store and the terminal (tests pass their own). */
export interface GatewayKeysIo {
  out: (line: string) => void;
  now: () => number;
}

async function withStore<T>(services: SurfaceServices, flags: GatewayKeyStoreFlags, use: (keys: ApiKeyStore) => Promise<T>): Promise<T> {
  const store = await services.keyStore(keyStoreLocation(flags));
  try {
    return await use(store.keys);
  } finally {
    await store.close();
  }
}

/**
 * Registers `gateway keys add|list|revoke` under the `gateway` command.
 *
 * @example
 * registerGatewayKeysCommand(gatewayCommand, services);
 */
export function registerGatewayKeysCommand(gateway: Command, services: SurfaceServices, io: GatewayKeysIo = { out: (line) => void process.stdout.write(`${line}\n`), now: Date.now }): void {
  const keys = gateway.command("keys").description("Manages the gateway's API keys and tenants (BUD-4): add, list, revoke.");
  withKeyStoreOptions(
    keys
      .command("add")
      .description("Creates an API key for a tenant and prints its secret once; limits given replace the tenant's, the others stay.")
      .requiredOption("--tenant <id>", "the tenant the key belongs to (created when new)")
      .option("--budget-tokens <n>", "the tenant's token budget", count("budget-tokens"))
      .option("--budget-usd <x>", "the tenant's budget in USD", usd)
      .addOption(new Option("--period <period>", "the budget starts again each UTC day or month (default never)").choices(["day", "month"]))
      .option("--requests-per-minute <n>", "requests per minute", count("requests-per-minute"))
      .option("--tokens-per-minute <n>", "tokens per minute", count("tokens-per-minute"))
      .option("--concurrency <n>", "requests running at once", count("concurrency")),
  ).action(async (_flags: unknown, command: Command) => {
    const flags = command.optsWithGlobals<GatewayKeyStoreFlags & { tenant: string; budgetTokens?: number; budgetUsd?: number; period?: "day" | "month"; requestsPerMinute?: number; tokensPerMinute?: number; concurrency?: number }>();
    const limits: ApiTenantLimits = {
      ...(flags.budgetTokens === undefined ? {} : { budgetTokens: flags.budgetTokens }),
      ...(flags.budgetUsd === undefined ? {} : { budgetUsd: flags.budgetUsd }),
      ...(flags.period === undefined ? {} : { budgetPeriod: flags.period }),
      ...(flags.requestsPerMinute === undefined ? {} : { requestsPerMinute: flags.requestsPerMinute }),
      ...(flags.tokensPerMinute === undefined ? {} : { tokensPerMinute: flags.tokensPerMinute }),
      ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
    };
    const { key, secret } = await withStore(services, flags, (store) => store.add({ id: flags.tenant, ...limits }, io.now()));
    io.out(`key ${key.id} for tenant ${key.tenantId} (shown once; store it now):`);
    io.out(secret);
  });
  withKeyStoreOptions(keys.command("list").description("Lists the keys: id, tenant, created, revoked (never a secret).")).action(async (_flags: unknown, command: Command) => {
    const flags = command.optsWithGlobals<GatewayKeyStoreFlags>();
    const found = await withStore(services, flags, (store) => store.list());
    io.out(["id", "tenant", "created", "revoked"].join("\t"));
    for (const key of found) io.out(row(key));
  });
  withKeyStoreOptions(keys.command("revoke").description("Revokes a key; every gateway host refuses it within the key cache bound (2 s by default).").argument("<id>", "the key's id (sh_ and 8 characters, as `keys list` shows it)")).action(
    async (id: string, _flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals<GatewayKeyStoreFlags>();
      const revoked = await withStore(services, flags, (store) => store.revoke(id, io.now()));
      if (!revoked) throw new SteamharnessError("not_found", `[steamharness] [gateway] no valid key has the id ${id}`, { field: "id" });
      io.out(`revoked ${id}`);
    },
  );
}
