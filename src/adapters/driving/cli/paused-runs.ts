import type { DecisionAnswerer } from "../../../domain/agent/decision-answerer.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import type { PendingInteraction, WorkflowRunReport } from "../../../domain/workflow/run-report.js";
import type { PausedRunAnswer } from "../../../domain/workflow/paused-run.js";

// DX-10: the CLI side of answering a paused run — the flags of `steamharness answer` and the
// hint `run` prints; the kept runs themselves are the app's (src/app/workflow-runs/paused-runs.ts,
// MCP uses them too).

/**
 * The answer of `--approve`, `--deny [reason]` or `--value <json>`, checked against what the run
 * waits for (an approval takes a decision, an input form a JSON object of field values), given
 * by `answeredBy` (UI-7: recorded with the run's decision).
 *
 * @example
 * parseAnswer({ value: '{"answer":"blue"}' }, pending, { surface: "cli" }) // { kind: "input", values: { answer: "blue" }, answeredBy: { surface: "cli" } }
 */
export function parseAnswer(flags: { approve?: boolean; deny?: string | boolean; value?: string }, pending: PendingInteraction, answeredBy: DecisionAnswerer): PausedRunAnswer {
  const given = [flags.approve === true, flags.deny !== undefined && flags.deny !== false, flags.value !== undefined].filter(Boolean).length;
  if (given !== 1) throw new SteamharnessError("input_validation", "give exactly one of --approve, --deny [reason] or --value <json>", { field: "answer" });
  if (pending.kind === "approval") {
    if (flags.value !== undefined) throw new SteamharnessError("input_validation", `request ${pending.requestId} is an approval: answer it with --approve or --deny [reason]`, { field: "answer" });
    if (flags.approve) return { kind: "approval", decision: { outcome: "approved", answeredBy } };
    return { kind: "approval", decision: { outcome: "denied", reason: typeof flags.deny === "string" ? flags.deny : "denied with steamharness answer", answeredBy } };
  }
  if (flags.value === undefined) throw new SteamharnessError("input_validation", `request ${pending.requestId} asks for input: answer it with --value '<json object of the fields>' (${pending.fields.join("; ")})`, { field: "answer" });
  let values: unknown;
  try {
    values = JSON.parse(flags.value);
  } catch {
    throw new SteamharnessError("input_validation", `--value is not valid JSON: ${flags.value.length > 80 ? `${flags.value.slice(0, 80)}…` : flags.value}`, { field: "--value" });
  }
  if (typeof values !== "object" || values === null || Array.isArray(values)) throw new SteamharnessError("input_validation", "--value must be a JSON object of field values", { field: "--value" });
  return { kind: "input", values: values as Record<string, JsonValue>, answeredBy };
}

/**
 * The command that answers a pending request of a paused run, as `run` prints it.
 *
 * @example
 * process.stderr.write(answerHint("./project", report));
 */
export function answerHint(projectDir: string, report: WorkflowRunReport): string {
  const pending = report.pending!;
  const how = pending.kind === "approval" ? "--approve   (or --deny [reason])" : `--value '{${pending.fields.map((field) => `"${field.split(" ")[0]}": …`).join(", ")}}'`;
  const dir = /\s/.test(projectDir) ? JSON.stringify(projectDir) : projectDir;
  return `steamharness: run ${report.runId} waits for ${pending.kind} ${pending.requestId}; answer it later with:\n  steamharness answer ${dir} ${report.runId} ${pending.requestId} ${how}\n`;
}

