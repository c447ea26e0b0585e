import { Option, type Command } from "commander";
import type { DataDirOptions } from "../workflow/data-dirs.js";

/** Commander's parsed values of the data-dir options. */
export interface DataDirFlags extends DataDirOptions {
  relatedProject?: string[];
}

/**
 * Adds the MCP-2 data-dir options (absolute paths, checked when the host opens) and the
 * repeatable `--related-project alias=dir` to a command.
 *
 * @example
 * addDataDirOptions(program.command("mcp").argument("<workflow-dir>"));
 */
export function addDataDirOptions(command: Command): Command {
  return command
    .addOption(new Option("--data-dir <dir>", "root of local workflow data (absolute; default ~/.steamharness)"))
    .addOption(new Option("--file-store-dir <dir>", "managed-file store for imported file params (absolute; default <data-dir>/files)"))
    .addOption(new Option("--kv-store-dir <dir>", "the project's local KV store (absolute; default <data-dir>/kv)"))
    .addOption(new Option("--persistent-value-store-dir <dir>", "PersistentValue and local knowledge store (absolute; default <data-dir>/values)"))
    .addOption(new Option("--file-create-store-dir <dir>", "files created by runs (absolute; default <data-dir>/created)"))
    .addOption(new Option("--auth-dir <dir>", "where workflow-auth.json is saved (absolute; default <data-dir>)"))
    .addOption(
      new Option("--related-project <alias=dir>", "bind a confirmed related project (absolute dir; repeatable)").argParser(
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      ),
    );
}

/**
 * Picks the data-dir options out of commander's parsed options.
 *
 * @example
 * const dirs = dataDirsFrom(command.opts());
 */
export function dataDirsFrom(flags: DataDirFlags): DataDirOptions {
  const out: DataDirOptions = {};
  for (const key of ["dataDir", "fileStoreDir", "kvStoreDir", "persistentValueStoreDir", "fileCreateStoreDir", "authDir"] as const) {
    if (flags[key] !== undefined) out[key] = flags[key];
  }
  return out;
}
