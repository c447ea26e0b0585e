import { resolve } from "node:path";
import { Option, type Command } from "commander";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import { isSteamharnessError, SteamharnessError } from "../../../domain/errors.js";
import { redactSecrets, secretValues } from "../../../domain/redaction.js";
import type { JsonValue } from "../../../domain/json.js";
import type { WorkflowRunReport } from "../../../domain/workflow/run-report.js";
import type { StructureReport } from "../../../domain/workflow/workflow-definition.js";
import type { RunFolderOptions } from "../../../ports/project-files.js";
import type { ProjectRunner } from "../../../ports/project-runner.js";
import { cliRejection, exitCodeOfError, exitCodeOfStatus, type CliRejection } from "../shared/exit-codes.js";
import { timeoutMs } from "../shared/option-parsers.js";
import { addRunRetentionOption, runRetentionFrom, type RunRetentionFlags } from "./runs-command.js";
import { approvalPolicyFrom } from "./approval-policy-option.js";
import { addEscalationWebhookOptions, type EscalationWebhookFlags } from "../shared/escalation-webhook-option.js";

// The subcommands of `steamharness`. Their implementations load lazily (dynamic imports in the
// actions), so `--help`, `--version` and the MCP handshake do not pay for TypeBox or the runner.

/** Commander's parsed values of the data-dir options. */
export interface DataDirFlags extends Omit<RunFolderOptions, "sessionFolder"> {
  agentStoreDir?: string;
  relatedProject?: string[];
  allowFileRoot?: string[];
  approvalPolicy?: string;
}

/**
 * Adds the MCP-2 data-dir options (absolute paths, checked when the runner opens), the
 * repeatable `--related-project alias=dir` and the repeatable `--allow-file-root <dir>` (SEC-5)
 * to a command.
 *
 * @example
 * addDataDirOptions(program.command("mcp").argument("<workflow-dir>"));
 */
export function addDataDirOptions(command: Command): Command {
  return command
    .addOption(new Option("--data-dir <dir>", "root of local workflow data (a relative path is resolved against the working directory; default ~/.steamharness)"))
    .addOption(new Option("--file-store-dir <dir>", "managed-file store for imported file params (absolute; default <data-dir>/files)"))
    .addOption(new Option("--kv-store-dir <dir>", "the project's local KV store (absolute; default <data-dir>/kv)"))
    .addOption(new Option("--persistent-value-store-dir <dir>", "PersistentValue and local knowledge store (absolute; default <data-dir>/values)"))
    .addOption(new Option("--file-create-store-dir <dir>", "files created by runs (absolute; default <data-dir>/created)"))
    .addOption(new Option("--auth-dir <dir>", "where workflow-auth.json is saved (absolute; default <data-dir>)"))
    .addOption(new Option("--agent-store-dir <dir>", "durable agent sessions (absolute; default <workflow-dir>/.workflow/agents)"))
    .addOption(
      new Option("--related-project <alias=dir>", "bind a confirmed related project (absolute dir; repeatable)").argParser(
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      ),
    )
    .addOption(
      new Option(
        "--allow-file-root <dir>",
        "import file params only from below this directory (absolute, real path; repeatable; {tenant} stands for the caller's tenant, e.g. /srv/uploads/{tenant}; default the project dir and the working dir, unless that is / or your home dir or above — none with OAuth or --keys, where file params need this flag); /proc, /sys, /dev and the server's own state (data dirs, stores, SQLite side files, .git, .env) are always refused",
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .addOption(new Option("--approval-policy <file>", "govern tool approvals by this approval policy (JSON, docs/approvals.md): requests, decisions and who gave them go to the audit log in the persistent-value store (steamharness audit)"));
}

/**
 * Picks the data-dir options out of commander's parsed options.
 *
 * @example
 * const dirs = dataDirsFrom(command.opts());
 */
export function dataDirsFrom(flags: DataDirFlags): RunFolderOptions {
  const out: RunFolderOptions = {};
  for (const key of ["dataDir", "fileStoreDir", "kvStoreDir", "persistentValueStoreDir", "fileCreateStoreDir", "authDir"] as const) {
    if (flags[key] !== undefined) out[key] = flags[key];
  }
  // `--agent-store-dir` names the runs' session folder.
  if (flags.agentStoreDir !== undefined) out.sessionFolder = flags.agentStoreDir;
  // DX-18: `--data-dir ./data` means the folder the person sees, here; it is resolved once, in this
  // process, so the workers (and an MCP client's own working directory) never reinterpret it.
  // The other folders stay absolute-only: each names one store a host shares on purpose.
  if (out.dataDir !== undefined) out.dataDir = resolve(out.dataDir);
  return out;
}

/**
 * The structure report as a person reads it: project id, then each entrypoint with its title,
 * description and static params, then the prompts, resources and resource templates it declares.
 *
 * @example
 * process.stdout.write(formatStructure(report));
 */
export function formatStructure(report: StructureReport): string {
  const lines = [`Workflow project ${report.projectId}${report.name ? ` (${report.name})` : ""}`, ""];
  for (const entry of report.entrypoints) {
    lines.push(`${entry.id} — ${entry.title}`);
    if (entry.description) lines.push(`  ${entry.description}`);
    if (entry.inputSchema) lines.push("  input: a JSON Schema 2020-12 document (--json prints it)");
    for (const param of entry.params) {
      const traits = [param.type, param.multiple ? "multiple" : "", param.required ? "required" : "", param.format ?? ""].filter(Boolean);
      const options = param.options ? ` [${param.options.map((o) => (typeof o === "string" ? o : o.value)).join(", ")}]` : "";
      const fallback = param.default !== undefined ? ` (default ${JSON.stringify(param.default)})` : "";
      lines.push(`  - ${param.name}: ${traits.join(", ")}${options}${fallback}${param.description ? ` — ${param.description}` : ""}`);
    }
    lines.push("");
  }
  lines.push(...formatPublications(report));
  return `${lines.join("\n")}`;
}

/** The prompts, resources and resource templates of a structure report (MCP-15), as lines; none when it declares none. */
function formatPublications(report: StructureReport): string[] {
  const lines: string[] = [];
  const section = (title: string, items: string[][]) => {
    if (items.length === 0) return;
    lines.push(`${title}:`, ...items.flat(), "");
  };
  section(
    "Prompts",
    (report.prompts ?? []).map((prompt) => [
      `  ${prompt.name} — ${prompt.title}${prompt.description ? `: ${prompt.description}` : ""}`,
      ...prompt.arguments.map((argument) => `    - ${argument.name}${argument.required ? ": required" : ""}${argument.options ? ` [${argument.options.join(", ")}]` : ""}${argument.description ? ` — ${argument.description}` : ""}`),
    ]),
  );
  const source = (resource: { text?: string; blob?: string; file?: string }) => (resource.file !== undefined ? `file ${resource.file}` : resource.blob !== undefined ? "inline Base64" : "inline text");
  section(
    "Resources",
    (report.resources ?? []).map((resource) => [`  ${resource.uri} — ${resource.title ?? resource.name}${resource.mimeType ? ` (${resource.mimeType})` : ""}, ${source(resource)}${resource.description ? ` — ${resource.description}` : ""}`]),
  );
  section(
    "Resource templates",
    (report.resourceTemplates ?? []).map((template) => [`  ${template.uriTemplate} — ${template.title ?? template.name}${template.mimeType ? ` (${template.mimeType})` : ""}${template.description ? ` — ${template.description}` : ""}`]),
  );
  return lines;
}

/**
 * `steamharness structure <dir> [--json]`: loads the project in a worker and prints its
 * structure report.
 *
 * @example
 * registerStructureCommand(program);
 */
export function registerStructureCommand(program: Command, services: SurfaceServices): void {
  program
    .command("structure")
    .description("print the structure report of a workflow project (project id, entrypoints, static params, prompts and resources)")
    .argument("<workflow-dir>", "workflow project folder")
    .option("--json", "print the report as JSON")
    .action(async (dir: string, flags: { json?: boolean }) => {
      const { openProjectRunner } = await import("../../../app/workflow-runs/project-runner.js");
      const runner = await openProjectRunner({ projectDir: dir, ports: await services.workflowRunPorts() });
      try {
        const report = await runner.structure();
        process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatStructure(report));
      } finally {
        await runner.close();
      }
    });
}

interface RunFlags extends DataDirFlags, RunRetentionFlags {
  params?: string;
  json?: boolean;
  timeout?: number;
}

function parseParams(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new SteamharnessError("input_validation", `--params is not valid JSON: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`, { field: "--params" });
  }
}

/** A run report as `run` prints it without `--json`: the output, or the status line and what the run waits for. */
export function formatReport(report: WorkflowRunReport): string {
  if (report.status === "success") return `${JSON.stringify(report.result.data.output, null, 2)}\n`;
  const pending = report.pending ? `\npending ${report.pending.kind}: ${report.pending.message}\n  ${report.pending.fields.join("\n  ")}` : "";
  return `run ${report.runId} ${report.status}: ${report.error?.message ?? ""}${pending}\n`;
}

/** What `run --json` prints when no run started: the arguments, the project or the entrypoint were refused. */
export interface RunRejection extends CliRejection {
  projectId: string | null;
  entrypointId: string;
}

/**
 * The `run --json` document of a command refused before any run started, so a script always
 * reads one JSON object on stdout; its message is the reason of the stderr line (one prefix, DX-15).
 *
 * @example
 * runRejection(new SteamharnessError("not_found", "unknown entrypoint \"nope\""), "nope", null)
 * // { runId: null, projectId: null, entrypointId: "nope", status: "rejected", error: { code: "not_found", message: "unknown entrypoint \"nope\"" } }
 */
export function runRejection(error: unknown, entrypointId: string, projectId: string | null, secrets: readonly string[] = []): RunRejection {
  const { runId, status, error: out } = cliRejection(error, secrets);
  return { runId, projectId, entrypointId, status, error: out };
}

/** The report with its error messages redacted (the output is the project's own data, kept as is). */
export function redactReport(report: WorkflowRunReport, secrets: readonly string[]): WorkflowRunReport {
  const data = { ...report.result.data, errMessage: redactSecrets(report.result.data.errMessage, secrets) };
  return {
    ...report,
    result: { data },
    ...(report.error ? { error: { ...report.error, message: redactSecrets(report.error.message, secrets) } } : {}),
  };
}

/**
 * `steamharness run <dir> <entrypoint> --params JSON [--json]`: validates the params against
 * the entrypoint's schema, runs it in a worker and prints the run report
 * `{ runId, status, result: { data: { errCode, errMessage, output } } }` (with `--json`) or the
 * output. With `--json` stdout always holds one JSON document, also when nothing ran
 * ({@link RunRejection}). Exit codes: EXIT_CODES (exit-codes.ts).
 *
 * @example
 * registerRunCommand(program);
 */
export function registerRunCommand(program: Command, services: SurfaceServices): void {
  const command = program
    .command("run")
    .description("run one entrypoint of a workflow project in an isolated worker")
    .argument("<workflow-dir>", "workflow project folder")
    .argument("<entrypoint>", "entrypoint id")
    .option("--params <json>", "entrypoint params as a JSON object", "{}")
    .option("--json", "print one JSON document on stdout: the run report, or { status: \"rejected\", error } when nothing ran")
    .addOption(new Option("--timeout <ms>", "kill the run after this many milliseconds (a whole number ≥ 1)").argParser(timeoutMs));
  addRunRetentionOption(addDataDirOptions(command)).action(async (dir: string, entrypointId: string, flags: RunFlags) => {
    let runner: ProjectRunner | undefined;
    try {
      const args = parseParams(flags.params);
      const { openProjectRunner } = await import("../../../app/workflow-runs/project-runner.js");
      const { createTerminalHandlers } = await import("./terminal-handlers.js");
      runner = await openProjectRunner({
        projectDir: dir,
        ports: await services.workflowRunPorts(),
        dirs: dataDirsFrom(flags),
        relatedProjects: flags.relatedProject ?? [],
        ...(flags.allowFileRoot ? { allowedFileRoots: flags.allowFileRoot } : {}),
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        ...runRetentionFrom(flags),
        ...(await approvalPolicyFrom(flags, services)),
      });
      const entrypoint = await runner.entrypoint(entrypointId);
      const prepared = await runner.prepare(entrypoint, args);
      const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
      const handlers = createTerminalHandlers(interactive);
      const report = redactReport(await runner.run(entrypoint, prepared, handlers).finally(() => handlers.close()), runner.secrets);
      // DX-10: kept by its run id, so `steamharness answer` can answer it later; kept before the
      // report is printed, so a failure to keep it is the one document stdout gets (DX-15).
      const paused = report.status === "waiting_for_input" && report.pending ? await import("./paused-runs.js") : undefined;
      if (paused) await runner.keepPausedRun(report, { entrypointId, args: args as JsonValue });
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      if (paused) process.stderr.write(paused.answerHint(dir, report));
      process.exitCode = exitCodeOfStatus(report.status);
    } catch (error) {
      if (!flags.json) throw error;
      // Nothing ran: the one-line reason still goes to stderr for a person, the document to stdout.
      const secrets = [...(runner?.secrets ?? []), ...secretValues(process.env)];
      const rejection = runRejection(error, entrypointId, runner?.location.manifest.id ?? null, secrets);
      process.stderr.write(`steamharness: ${rejection.error.message}\n`);
      process.stdout.write(`${JSON.stringify(rejection, null, 2)}\n`);
      process.exitCode = exitCodeOfError(error);
    } finally {
      await runner?.close();
    }
  });
}

interface McpFlags extends DataDirFlags, RunRetentionFlags, EscalationWebhookFlags {
  timeout?: number;
  workers?: string;
  freshWorker?: boolean;
  maxRunsPerWorker?: string;
  authTokenFile?: string;
  oauthScopesConfig?: string;
}

/** What the MCP surface brings to `steamharness mcp` (ARCH-9: handed in by the composition root, so the CLI imports no other surface). */
export interface McpCommandParts {
  /** Adds the `--http` flags (cheap: nothing heavy loads at registration, so `--help` stays fast). */
  addHttpOptions(command: Command): Command;
  /** Loads the servers when the command runs. */
  load(): Promise<{
    parseWorkers(value: string): number;
    parseMaxRunsPerWorker(value: string): number;
    /** The `--http` options of the flags, `null` without `--http`. */
    httpOptionsFrom(flags: Record<string, unknown>): Promise<Record<string, unknown> | null>;
    serveStdio(options: Record<string, unknown>): Promise<void>;
    serveHttp(options: Record<string, unknown>): Promise<void>;
  }>;
}

/**
 * `steamharness mcp <workflow-dir> [options]`: serves the project's entrypoints as MCP tools
 * over stdio (MCP-1 … MCP-9), or over Streamable HTTP with `--http` (MCP-11). The server module loads only when this command runs; `--workers`
 * is checked before anything starts (a bad value is `input_validation`: exit code 2).
 *
 * @example
 * registerMcpCommand(program, services, mcpCommandParts(services));
 */
export function registerMcpCommand(program: Command, services: SurfaceServices, mcp: McpCommandParts): void {
  const command = program
    .command("mcp")
    .description("serve a workflow project's entrypoints as MCP tools over stdio (or Streamable HTTP with --http)")
    .argument("<workflow-dir>", "workflow project folder (package.json with a UUID id and projectType \"workflow\")")
    .addOption(new Option("--timeout <ms>", "end a tool call's run after this many milliseconds (a whole number ≥ 1; isError, status timeout)").argParser(timeoutMs))
    .option(
      "--workers <n>",
      "worker processes kept warm, and tool calls run at once (1-64, default 2); later calls queue. A worker whose call ended cleanly serves the next one; a cancelled, timed-out, crashed or throwing call retires its worker",
    )
    .option("--fresh-worker", "run every tool call in a fresh worker process that serves only that call (strict isolation, slower)")
    .option("--max-runs-per-worker <n>", "retire a reused worker after this many runs (1-1000000, default 1000)");
  addEscalationWebhookOptions(addRunRetentionOption(mcp.addHttpOptions(addDataDirOptions(command)))).action(async (dir: string, flags: McpFlags) => {
    const { parseMaxRunsPerWorker, parseWorkers, httpOptionsFrom, serveStdio, serveHttp } = await mcp.load();
    const workers = flags.workers === undefined ? undefined : parseWorkers(flags.workers);
    const maxRunsPerWorker = flags.maxRunsPerWorker === undefined ? undefined : parseMaxRunsPerWorker(flags.maxRunsPerWorker);
    const http = await httpOptionsFrom({ ...flags });
    const serve = http ? serveHttp : serveStdio;
    await serve({
      ...http,
      projectDir: dir,
      ports: await services.workflowRunPorts(),
      dirs: dataDirsFrom(flags),
      relatedProjects: flags.relatedProject ?? [],
      ...(flags.allowFileRoot ? { allowedFileRoots: flags.allowFileRoot } : {}),
      // TEN-2: the server's own credential files are never a file param.
      serverState: [flags.authTokenFile, flags.oauthScopesConfig, flags.escalationWebhookSecretFile].filter((file): file is string => file !== undefined).map((file) => resolve(file)),
      version: command.parent?.version() ?? "0.0.0",
      ...(workers !== undefined ? { workers } : {}),
      ...(flags.freshWorker ? { workerReuse: false } : {}),
      ...(maxRunsPerWorker !== undefined ? { maxRunsPerWorker } : {}),
      ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
      ...runRetentionFrom(flags),
      ...(await approvalPolicyFrom(flags, services, { sweep: true })),
    });
  });
}
