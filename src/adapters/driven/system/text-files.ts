import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import type { TextFiles } from "../../../ports/text-files.js";

/**
 * The machine's files as {@link TextFiles}: what the commands and the app read and write by path.
 *
 * @example
 * const key = (await localTextFiles.read("/run/secrets/admin-key")).trim();
 */
export const localTextFiles: TextFiles = {
  read: (path) => readFile(path, "utf8"),
  write: (path, text) => writeFile(path, text),
  kind: (path) =>
    stat(path).then(
      (found) => (found.isFile() ? "file" : found.isDirectory() ? "folder" : "other"),
      () => null,
    ),
  list: (folder) => readdir(folder),
  makeFolder: async (folder) => void (await mkdir(folder, { recursive: true })),
};
