import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "dotenv";
import { SteamharnessError } from "../../../domain/errors.js";

/** The file, in the auth dir, where the CLI keeps the saved server login. */
export const AUTH_FILE_NAME = "workflow-auth.json";
/** Environment variable of the steamharness server URL. */
export const SERVER_URL_ENV = "STEAMHARNESS_SERVER_URL";
/** Environment variable of the steamharness server admin key. */
export const SERVER_ADMIN_KEY_ENV = "STEAMHARNESS_SERVER_ADMIN_KEY";

/** Saved server login: `{ "serverUrl": "https://…", "adminKey": "…" }` in `workflow-auth.json`. */
export interface SavedWorkflowAuth {
  serverUrl?: string;
  adminKey?: string;
}

/** The server login a run uses, and where it came from. */
export interface ResolvedServerAuth {
  serverUrl?: string;
  adminKey?: string;
  source: "environment" | "project-env" | "saved" | "none";
}

/**
 * Reads the project's `.env` without touching `process.env` (dotenv's `parse`, which never logs
 * to stdout — `config()` may, and stdout belongs to JSON-RPC). A missing file is `{}`.
 *
 * @example
 * const projectEnv = await readProjectEnv("/abs/project");
 */
export async function readProjectEnv(projectDir: string): Promise<Record<string, string>> {
  try {
    return parse(await readFile(join(projectDir, ".env")));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new SteamharnessError("input_validation", `cannot read ${join(projectDir, ".env")}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Reads `workflow-auth.json` from the auth dir; `null` when there is none. A malformed file is
 * an `input_validation` error rather than a silent logout.
 *
 * @example
 * const saved = await readSavedAuth("/home/me/.steamharness");
 */
export async function readSavedAuth(authDir: string): Promise<SavedWorkflowAuth | null> {
  const path = join(authDir, AUTH_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new SteamharnessError("input_validation", `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SteamharnessError("input_validation", `${path} is not valid JSON`, { cause: error });
  }
  if (typeof parsed !== "object" || parsed === null) throw new SteamharnessError("input_validation", `${path} must hold a JSON object`);
  const record = parsed as Record<string, unknown>;
  const saved: SavedWorkflowAuth = {};
  if (typeof record.serverUrl === "string") saved.serverUrl = record.serverUrl;
  if (typeof record.adminKey === "string") saved.adminKey = record.adminKey;
  return saved;
}

/**
 * Picks the server login. URL and key travel as a pair so a saved key is never sent to a URL
 * it was not saved for: if either variable is set in the process environment, both come from
 * there; else if either is in the project's `.env`, both come from it; else the saved auth.
 *
 * @example
 * resolveServerAuth(process.env, projectEnv, await readSavedAuth(dirs.authDir)).source // "environment"
 */
export function resolveServerAuth(
  processEnv: Record<string, string | undefined>,
  projectEnv: Record<string, string>,
  saved: SavedWorkflowAuth | null,
): ResolvedServerAuth {
  const fromEnv = (env: Record<string, string | undefined>, source: ResolvedServerAuth["source"]): ResolvedServerAuth | null => {
    const serverUrl = env[SERVER_URL_ENV] || undefined;
    const adminKey = env[SERVER_ADMIN_KEY_ENV] || undefined;
    if (serverUrl === undefined && adminKey === undefined) return null;
    return { source, ...(serverUrl ? { serverUrl } : {}), ...(adminKey ? { adminKey } : {}) };
  };
  const explicit = fromEnv(processEnv, "environment") ?? fromEnv(projectEnv, "project-env");
  if (explicit) return explicit;
  if (saved && (saved.serverUrl || saved.adminKey)) return { source: "saved", ...saved };
  return { source: "none" };
}

/**
 * The environment of a worker: the project's `.env` under the process environment (explicit
 * variables win, as with dotenv), with the resolved server login set or removed.
 *
 * @example
 * fork(worker, { env: workerEnvironment(process.env, projectEnv, auth) });
 */
export function workerEnvironment(
  processEnv: Record<string, string | undefined>,
  projectEnv: Record<string, string>,
  auth: ResolvedServerAuth,
): Record<string, string> {
  const env: Record<string, string> = { ...projectEnv };
  for (const [key, value] of Object.entries(processEnv)) if (value !== undefined) env[key] = value;
  delete env[SERVER_URL_ENV];
  delete env[SERVER_ADMIN_KEY_ENV];
  if (auth.serverUrl) env[SERVER_URL_ENV] = auth.serverUrl;
  if (auth.adminKey) env[SERVER_ADMIN_KEY_ENV] = auth.adminKey;
  return env;
}
