import type { Command } from "commander";
import type { StructureReport } from "../../domain/workflow/workflow-definition.js";

/**
 * The structure report as a person reads it: project id, then each entrypoint with its title,
 * description and static params.
 *
 * @example
 * process.stdout.write(formatStructure(report));
 */
export function formatStructure(report: StructureReport): string {
  const lines = [`Workflow project ${report.projectId}${report.name ? ` (${report.name})` : ""}`, ""];
  for (const entry of report.entrypoints) {
    lines.push(`${entry.id} — ${entry.title}`);
    if (entry.description) lines.push(`  ${entry.description}`);
    for (const param of entry.params) {
      const traits = [param.type, param.multiple ? "multiple" : "", param.required ? "required" : "", param.format ?? ""].filter(Boolean);
      const options = param.options ? ` [${param.options.map((o) => (typeof o === "string" ? o : o.value)).join(", ")}]` : "";
      const fallback = param.default !== undefined ? ` (default ${JSON.stringify(param.default)})` : "";
      lines.push(`  - ${param.name}: ${traits.join(", ")}${options}${fallback}${param.description ? ` — ${param.description}` : ""}`);
    }
    lines.push("");
  }
  return `${lines.join("\n")}`;
}

/**
 * `steamharness structure <dir> [--json]`: loads the project in a worker and prints its
 * structure report.
 *
 * @example
 * registerStructureCommand(program);
 */
export function registerStructureCommand(program: Command): void {
  program
    .command("structure")
    .description("print the structure report of a workflow project (project id, entrypoints, static params)")
    .argument("<workflow-dir>", "workflow project folder")
    .option("--json", "print the report as JSON")
    .action(async (dir: string, flags: { json?: boolean }) => {
      const { createWorkflowHost } = await import("../workflow/workflow-host.js");
      const host = await createWorkflowHost({ projectDir: dir });
      try {
        const report = await host.structure();
        process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatStructure(report));
      } finally {
        await host.close();
      }
    });
}
