import type { Command } from "commander";

/**
 * Registers `steamharness view [--store DIR | --postgres URL] [--agent-store-dir DIR] [--port N]` (VIEW-1): the
 * run viewer on 127.0.0.1, printed as a URL with its token. The storage is chosen in
 * `openViewStorage` (view-storage.ts), the one place a new backend flag (`--postgres URL`) joins.
 *
 * @example
 * registerViewCommand(program);
 */
export function registerViewCommand(program: Command): void {
  program
    .command("view")
    .description("browse agent sessions and runs in the browser (local web app on 127.0.0.1 with a URL token)")
    .option("--store <dir>", "a SQLite storage directory (as createSqliteStorage({ directory })); default ./.steamharness")
    .option("--agent-store-dir <dir>", "the session folder, when it is not <store>/agents (a project's .workflow/agents)")
    .option("--postgres <url>", "view the sessions of a PostgreSQL storage (steamharness/postgres; needs the pg package) instead of a SQLite store")
    .option("--schema <name>", "the PostgreSQL schema (default steamharness)")
    .option("--port <n>", "port on 127.0.0.1 (default: a free one)")
    .option("--context-window <tokens>", "context window the ring gauge assumes when the log does not say (default 128000)")
    .action(async (flags: { store?: string; agentStoreDir?: string; postgres?: string; schema?: string; port?: string; contextWindow?: string }) => {
      // Loaded on use: other commands do not pay for the viewer.
      const { runView } = await import("./view-run.js");
      await runView(flags);
    });
}
