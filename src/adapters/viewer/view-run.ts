import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";
import type { SessionCatalog } from "../../ports/session-catalog.js";
import type { Storage } from "../../ports/storage.js";
import { listenError } from "../cli/fatal-line.js";
import { createSqliteStorage } from "../sqlite/store/sqlite-storage.js";
import { createViewerServer } from "./viewer-server.js";

/** The flags of `steamharness view`, as commander parses them. */
export interface ViewFlags {
  store?: string;
  /** A PostgreSQL connection string (`steamharness/postgres`): view its sessions instead of a SQLite store. */
  postgres?: string;
  /** The PostgreSQL schema (default `"steamharness"`). */
  schema?: string;
  agentStoreDir?: string;
  port?: string;
  contextWindow?: string;
}

const integer = (value: string | undefined, field: string, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new SteamharnessError("input_validation", `--${field} must be an integer from ${min} to ${max}`, { field });
  return number;
};

/**
 * The storage `steamharness view` reads: a SQLite storage directory that must exist (a viewer
 * never creates an empty store). A PostgreSQL flag joins here: open that storage and give the
 * viewer its session catalog (index rows).
 *
 * @example
 * const storage = openViewStorage({ store: ".steamharness" });
 */
export function openViewStorage(flags: ViewFlags): Storage {
  if (flags.postgres !== undefined) throw new SteamharnessError("input_validation", "a PostgreSQL storage opens asynchronously: use openViewTarget", { field: "postgres" });
  const directory = resolve(flags.store ?? ".steamharness");
  if (!existsSync(directory)) throw new SteamharnessError("not_found", `no storage directory at ${directory} (pass --store DIR)`, { field: "store" });
  const agentStoreDir = flags.agentStoreDir === undefined ? undefined : resolve(flags.agentStoreDir);
  if (agentStoreDir !== undefined && !existsSync(agentStoreDir)) throw new SteamharnessError("not_found", `no session folder at ${agentStoreDir}`, { field: "agentStoreDir" });
  return createSqliteStorage({ directory, ...(agentStoreDir === undefined ? {} : { agentStoreDir }) });
}

/**
 * What `steamharness view` shows: with `--postgres URL`, the PostgreSQL storage (pg loaded only
 * then) and its session catalog (the session index rows); else the SQLite store of
 * {@link openViewStorage} with its folder catalog.
 *
 * @example
 * const { storage, catalog } = await openViewTarget({ postgres: "postgres://127.0.0.1/app" });
 */
export async function openViewTarget(flags: ViewFlags): Promise<{ storage: Storage; catalog?: SessionCatalog }> {
  if (flags.postgres === undefined) return { storage: openViewStorage(flags) };
  if (flags.store !== undefined || flags.agentStoreDir !== undefined) throw new SteamharnessError("input_validation", "pass either --postgres or --store/--agent-store-dir", { field: "postgres" });
  const [{ createPostgresStorage }, { createPostgresSessionCatalog }] = await Promise.all([import("../postgres/postgres-storage.js"), import("../postgres/sessions/postgres-session-catalog.js")]);
  const schema = flags.schema;
  const storage = await createPostgresStorage({ connectionString: flags.postgres, ...(schema === undefined ? {} : { schema }) });
  const catalog = createPostgresSessionCatalog({ connectionString: flags.postgres, ...(schema === undefined ? {} : { schema }) });
  return { storage: { ...storage, close: async () => void (await Promise.all([catalog.close(), storage.close()])) }, catalog };
}

/**
 * Runs `steamharness view` until SIGINT/SIGTERM: prints the URL (token included) and serves.
 *
 * @example
 * await runView({ store: ".steamharness", port: "4477" });
 */
export async function runView(flags: ViewFlags): Promise<void> {
  const port = integer(flags.port, "port", 0, 65535);
  const contextWindow = integer(flags.contextWindow, "contextWindow", 1, 100_000_000);
  const { storage, catalog } = await openViewTarget(flags);
  const viewer = await createViewerServer({ storage, ...(catalog ? { catalog } : {}), ...(port === undefined ? {} : { port }), ...(contextWindow === undefined ? {} : { contextWindow }) }).catch(async (error: unknown) => {
    await storage.close();
    throw listenError(error, { host: "127.0.0.1", port });
  });
  process.stdout.write(`steamharness view: ${viewer.url}\n(only this machine can reach it; the token in the URL is required)\n`);
  await new Promise<void>((done) => {
    const stop = () => done();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await viewer.close();
  await storage.close();
}
