import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "dotenv";
import { SteamharnessError } from "../../../domain/errors.js";

export { AUTH_FILE_NAME, credentialOf, readSavedAuth, resolveServerAuth, workerEnvironment } from "../../../compose/configuration-store.js";
export type { ResolvedServerAuth, SavedWorkflowAuth } from "../../../compose/configuration-store.js";
export { SERVER_ADMIN_KEY_ENV, SERVER_URL_ENV } from "../../../domain/configuration/server-protocol.js";

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
