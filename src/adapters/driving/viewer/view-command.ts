import type { Command } from "commander";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import { addEscalationWebhookOptions, type EscalationWebhookFlags } from "../shared/escalation-webhook-option.js";

/**
 * Registers `steamharness view [project-dir] [--data-dir DIR] [--store DIR | --postgres URL]
 * [--agent-store-dir DIR] [--port N] [--approval-policy FILE [--escalation-webhook URL]]` (VIEW-1, DX-6, issue 47): the run viewer on 127.0.0.1, printed as a
 * URL with its token. A project folder opens that project's sessions (its `.workflow/agents`)
 * with no other flag; the storage is chosen in `openViewTarget` (view-run.ts), the one place a
 * new backend flag joins.
 *
 * @example
 * registerViewCommand(program, services);
 */
export function registerViewCommand(program: Command, services: SurfaceServices): void {
  addEscalationWebhookOptions(program.command("view"))
    .description("browse agent sessions and runs in the browser (local web app on 127.0.0.1 with a URL token)")
    .argument("[project-dir]", "a project folder: its sessions (<project-dir>/.workflow/agents) and its local store")
    .option("--data-dir <dir>", "root of local data, for a project folder (default ~/.steamharness)")
    .option("--store <dir>", "a SQLite storage directory (as createSqliteStorage({ directory })), instead of a project folder; default ./.steamharness")
    .option("--agent-store-dir <dir>", "the session folder, when it is not <store>/agents (alone: a project's .workflow/agents)")
    .option("--postgres <url>", "view the sessions of a PostgreSQL storage (steamharness/postgres; needs the pg package) instead of a SQLite store")
    .option("--schema <name>", "the PostgreSQL schema (default steamharness)")
    .option("--port <n>", "port on 127.0.0.1 (default: a free one)")
    .option("--context-window <tokens>", "context window the ring gauge assumes when the log does not say (default 128000)")
    .option("--approval-policy <file>", "decide tool approvals answered in the page through this approval policy (JSON, docs/approvals.md), recorded in the viewed store's audit log (steamharness audit)")
    .action(async (projectDir: string | undefined, flags: { dataDir?: string; store?: string; agentStoreDir?: string; postgres?: string; schema?: string; port?: string; contextWindow?: string } & EscalationWebhookFlags) => {
      // Loaded on use: other commands do not pay for the viewer.
      const { runView } = await import("./view-run.js");
      await runView({ ...flags, ...(projectDir === undefined ? {} : { projectDir }) }, services);
    });
}
