import type { Command } from "commander";
import { SteamharnessError } from "../../domain/errors.js";
import type { WorkflowRunReport } from "../../domain/workflow/run-report.js";
import { addDataDirOptions, dataDirsFrom, type DataDirFlags } from "./shared-options.js";

interface RunFlags extends DataDirFlags {
  params?: string;
  json?: boolean;
  timeout?: string;
}

function parseParams(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new SteamharnessError("input_validation", `--params is not valid JSON: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`, { field: "--params" });
  }
}

function formatReport(report: WorkflowRunReport): string {
  if (report.status === "success") return `${JSON.stringify(report.result.data.output, null, 2)}\n`;
  const pending = report.pending ? `\npending ${report.pending.kind}: ${report.pending.message}\n  ${report.pending.fields.join("\n  ")}` : "";
  return `run ${report.runId} ${report.status}: ${report.error?.message ?? ""}${pending}\n`;
}

/**
 * `steamharness run <dir> <entrypoint> --params JSON [--json]`: validates the params against
 * the entrypoint's schema, runs it in a worker and prints the run report
 * `{ runId, status, result: { data: { errCode, errMessage, output } } }` (with `--json`) or the
 * output. Exit code 0 on success, 1 otherwise.
 *
 * @example
 * registerRunCommand(program);
 */
export function registerRunCommand(program: Command): void {
  const command = program
    .command("run")
    .description("run one entrypoint of a workflow project in an isolated worker")
    .argument("<workflow-dir>", "workflow project folder")
    .argument("<entrypoint>", "entrypoint id")
    .option("--params <json>", "entrypoint params as a JSON object", "{}")
    .option("--json", "print the full run report as JSON")
    .option("--timeout <ms>", "kill the run after this many milliseconds");
  addDataDirOptions(command).action(async (dir: string, entrypointId: string, flags: RunFlags) => {
    const args = parseParams(flags.params);
    const { createWorkflowHost } = await import("../workflow/workflow-host.js");
    const { createTerminalHandlers } = await import("./terminal-handlers.js");
    const host = await createWorkflowHost({
      projectDir: dir,
      dirs: dataDirsFrom(flags),
      relatedProjects: flags.relatedProject ?? [],
      ...(flags.timeout ? { timeoutMs: Number(flags.timeout) } : {}),
    });
    try {
      const entrypoint = await host.entrypoint(entrypointId);
      const prepared = await host.prepare(entrypoint, args);
      const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
      const handlers = createTerminalHandlers(interactive);
      const report = await host.run(entrypoint, prepared, handlers).finally(() => handlers.close());
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      if (report.status !== "success") process.exitCode = 1;
    } finally {
      await host.close();
    }
  });
}
