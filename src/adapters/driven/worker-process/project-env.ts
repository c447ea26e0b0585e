import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "dotenv";
import { SteamharnessError } from "../../../domain/errors.js";

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
