import { createInterface, type Interface } from "node:readline";
import { SteamharnessError } from "../../../domain/errors.js";
import { parseTypedAnswer } from "../../../domain/workflow/answer-validation.js";
import type { JsonValue } from "../../../domain/json.js";
import { approvalForm, summarizeFields } from "../../../domain/workflow/interaction.js";
import { interactionRequired } from "../../../domain/workflow/run-report.js";
import type { RunHandlers } from "../../../ports/workflow-workers.js";

/** Who answers at the terminal (UI-7): a local person, recorded with each decision. */
const TERMINAL = { surface: "cli" } as const;

/** Run handlers that ask at the terminal, and release the terminal when the run is over. */
export type TerminalHandlers = RunHandlers & { close(): void };

/**
 * Handlers for `steamharness run`: on an interactive terminal, input and approvals are asked at
 * the prompt (on stderr, so `--json` output stays clean); otherwise the run ends with
 * `interaction_required`. Each answer is checked against its field and asked again until it
 * fits (a required field, one of the options, a number, yes/no, a date). An approval needs an
 * explicit "approve". One line reader serves the whole run, so answers typed ahead are kept; the
 * end of input cancels the run.
 *
 * @example
 * const handlers = createTerminalHandlers(process.stdin.isTTY === true);
 * try { await host.run(entrypoint, prepared, handlers) } finally { handlers.close() }
 */
export function createTerminalHandlers(interactive: boolean): TerminalHandlers {
  let reader: Interface | undefined;
  let lines: AsyncIterator<string> | undefined;
  const ask = async (question: string): Promise<string> => {
    reader ??= createInterface({ input: process.stdin, terminal: false });
    lines ??= reader[Symbol.asyncIterator]();
    process.stderr.write(question);
    const next = await lines.next();
    if (next.done) throw new SteamharnessError("cancelled", "the input ended before the run got its answer");
    return next.value;
  };
  return {
    close() {
      reader?.close();
    },
    async onInput(request) {
      const fields = request.fields ?? [];
      if (!interactive) {
        throw interactionRequired(
          { kind: "input", requestId: request.requestId, message: request.message, fields: summarizeFields(fields) },
          "the run is waiting for input and the terminal is not interactive",
        );
      }
      process.stderr.write(`${request.message}\n`);
      const values: Record<string, JsonValue> = {};
      const prompts = summarizeFields(fields);
      for (const [index, field] of fields.entries()) {
        // Asked again until the answer fits the field (required, options, type, date format).
        for (;;) {
          const parsed = parseTypedAnswer(field, await ask(`${prompts[index]}: `));
          if ("problem" in parsed) {
            process.stderr.write(`  ✗ ${parsed.problem}; try again\n`);
            continue;
          }
          if (parsed.value !== undefined) values[field.name] = parsed.value;
          break;
        }
      }
      return { outcome: "answered", values, answeredBy: TERMINAL };
    },
    async onApproval(request) {
      const form = approvalForm(request.toolId, request.arguments);
      if (!interactive) {
        throw interactionRequired(
          { kind: "approval", requestId: request.requestId, message: form.message, fields: ["decision (string, options: approve|deny, required)"] },
          `the run is waiting for approval of tool ${request.toolId} and the terminal is not interactive`,
        );
      }
      const answer = await ask(`${form.message} [approve/deny]: `);
      return answer.trim().toLowerCase() === "approve" ? { outcome: "approved", answeredBy: TERMINAL } : { outcome: "denied", reason: "denied at the prompt", answeredBy: TERMINAL };
    },
  };
}
