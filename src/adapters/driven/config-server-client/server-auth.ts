/**
 * Which configuration server a host uses and how it proves who it is (CFG-4): the saved login
 * `workflow-auth.json` in the auth dir (`--auth-dir`, written by `steamharness login`) and the
 * `STEAMHARNESS_SERVER_*` variables. Seed 002: "显式的 STEAMHARNESS_SERVER_URL /
 * STEAMHARNESS_SERVER_ADMIN_KEY 优先于已保存认证" — explicit variables win over the saved login.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SERVER_ACCOUNT_ENV, SERVER_ADMIN_KEY_ENV, SERVER_TOKEN_ENV, SERVER_URL_ENV } from "../../../domain/configuration/server-protocol.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { SavedServerLogin } from "../../../ports/surface-services.js";

/** The file, in the auth dir, where the CLI keeps the saved server login. */
export const AUTH_FILE_NAME = "workflow-auth.json";

/**
 * The saved login's file in an auth dir.
 *
 * @example
 * authFileOf("/home/me/.steamharness") // "/home/me/.steamharness/workflow-auth.json"
 */
export function authFileOf(authDir: string): string {
  return join(authDir, AUTH_FILE_NAME);
}

/** A saved server login: the URL and either an account token or the admin key and an account (the port's `SavedServerLogin`). */
export type SavedWorkflowAuth = SavedServerLogin;

/** The server login a host uses, and where it came from. */
export interface ResolvedServerAuth extends SavedWorkflowAuth {
  source: "environment" | "project-env" | "saved" | "none";
}

const VARIABLES = { serverUrl: SERVER_URL_ENV, token: SERVER_TOKEN_ENV, adminKey: SERVER_ADMIN_KEY_ENV, account: SERVER_ACCOUNT_ENV } as const;

/**
 * Where the saved login of an auth dir is (`<authDir>/workflow-auth.json`).
 *
 * @example
 * savedAuthPath("/home/me/.steamharness") // "/home/me/.steamharness/workflow-auth.json"
 */
export function savedAuthPath(authDir: string): string {
  return join(authDir, AUTH_FILE_NAME);
}

/**
 * Reads `workflow-auth.json` from the auth dir; `null` when there is none. A malformed file is
 * an `input_validation` error rather than a silent logout.
 *
 * @example
 * const saved = await readSavedAuth("/home/me/.steamharness");
 */
export async function readSavedAuth(authDir: string): Promise<SavedWorkflowAuth | null> {
  const path = authFileOf(authDir);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new SteamharnessError("input_validation", `[steamharness] [auth] cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SteamharnessError("input_validation", `[steamharness] [auth] ${path} is not valid JSON`, { cause: error });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new SteamharnessError("input_validation", `[steamharness] [auth] ${path} must hold a JSON object`);
  const record = parsed as Record<string, unknown>;
  const saved: SavedWorkflowAuth = {};
  for (const key of Object.keys(VARIABLES) as Array<keyof SavedWorkflowAuth>) if (typeof record[key] === "string") saved[key] = record[key] as string;
  return saved;
}

/**
 * Saves the login as `<authDir>/workflow-auth.json`, readable by its owner only (0600, the dir
 * 0700 when created here); written to a temporary file and renamed, so a reader never sees half.
 *
 * @example
 * await saveAuth("/home/me/.steamharness", { serverUrl: "https://config.example.com", token });
 */
export async function saveAuth(authDir: string, auth: SavedWorkflowAuth): Promise<string> {
  const path = authFileOf(authDir);
  await mkdir(authDir, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  const entries = (Object.keys(VARIABLES) as Array<keyof SavedWorkflowAuth>).filter((key) => auth[key] !== undefined).map((key) => [key, auth[key]]);
  await writeFile(temporary, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return path;
}

/**
 * Removes the saved login; `false` when there was none.
 *
 * @example
 * await removeSavedAuth("/home/me/.steamharness");
 */
export async function removeSavedAuth(authDir: string): Promise<boolean> {
  const path = authFileOf(authDir);
  try {
    await rm(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Picks the server login. The values travel as a set so a saved secret is never sent to a URL it
 * was not saved for: if any `STEAMHARNESS_SERVER_*` variable is set in the process environment,
 * all come from there; else if any is in the project's `.env`, all come from it; else the saved
 * login.
 *
 * @example
 * resolveServerAuth(process.env, projectEnv, await readSavedAuth(authDir)).source // "environment"
 */
export function resolveServerAuth(processEnv: Record<string, string | undefined>, projectEnv: Record<string, string>, saved: SavedWorkflowAuth | null): ResolvedServerAuth {
  const fromEnv = (env: Record<string, string | undefined>, source: ResolvedServerAuth["source"]): ResolvedServerAuth | null => {
    const found: SavedWorkflowAuth = {};
    for (const [key, name] of Object.entries(VARIABLES) as Array<[keyof SavedWorkflowAuth, string]>) if (env[name]) found[key] = env[name];
    return Object.keys(found).length === 0 ? null : { source, ...found };
  };
  const explicit = fromEnv(processEnv, "environment") ?? fromEnv(projectEnv, "project-env");
  if (explicit) return explicit;
  if (saved && Object.keys(saved).length > 0) return { source: "saved", ...saved };
  return { source: "none" };
}

/**
 * The environment of a worker: the project's `.env` under the process environment (explicit
 * variables win, as with dotenv), with the resolved server login set or removed.
 *
 * @example
 * fork(worker, { env: workerEnvironment(process.env, projectEnv, auth) });
 */
export function workerEnvironment(processEnv: Record<string, string | undefined>, projectEnv: Record<string, string>, auth: ResolvedServerAuth): Record<string, string> {
  const env: Record<string, string> = { ...projectEnv };
  for (const [key, value] of Object.entries(processEnv)) if (value !== undefined) env[key] = value;
  for (const [key, name] of Object.entries(VARIABLES) as Array<[keyof SavedWorkflowAuth, string]>) {
    delete env[name];
    if (auth[key]) env[name] = auth[key]!;
  }
  return env;
}
