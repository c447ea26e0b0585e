import { readFile, writeFile } from "node:fs/promises";
import type { TextFiles } from "../../../ports/text-files.js";

/**
 * The machine's files as {@link TextFiles}: what the CLI commands read and write by path.
 *
 * @example
 * const key = (await localTextFiles.read("/run/secrets/admin-key")).trim();
 */
export const localTextFiles: TextFiles = {
  read: (path) => readFile(path, "utf8"),
  write: (path, text) => writeFile(path, text),
};
