import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";
import type { Storage } from "../../ports/storage.js";
import { createSqliteStorage } from "../sqlite/store/sqlite-storage.js";
import { createViewerServer } from "./viewer-server.js";

/** The flags of `steamharness view`, as commander parses them. */
export interface ViewFlags {
  store?: string;
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
  const directory = resolve(flags.store ?? ".steamharness");
  if (!existsSync(directory)) throw new SteamharnessError("not_found", `no storage directory at ${directory} (pass --store DIR)`, { field: "store" });
  const agentStoreDir = flags.agentStoreDir === undefined ? undefined : resolve(flags.agentStoreDir);
  if (agentStoreDir !== undefined && !existsSync(agentStoreDir)) throw new SteamharnessError("not_found", `no session folder at ${agentStoreDir}`, { field: "agentStoreDir" });
  return createSqliteStorage({ directory, ...(agentStoreDir === undefined ? {} : { agentStoreDir }) });
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
  const storage = openViewStorage(flags);
  const viewer = await createViewerServer({ storage, ...(port === undefined ? {} : { port }), ...(contextWindow === undefined ? {} : { contextWindow }) });
  process.stdout.write(`steamharness view: ${viewer.url}\n(only this machine can reach it; the token in the URL is required)\n`);
  await new Promise<void>((done) => {
    const stop = () => done();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await viewer.close();
  await storage.close();
}
