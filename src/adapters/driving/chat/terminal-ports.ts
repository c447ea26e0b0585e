/**
 * The approval and user-input ports of `steamharness chat` (CONV-2): a person at the terminal
 * decides inline, so a turn waits at the prompt instead of pausing. Tool approvals need an
 * explicit "y"/"yes"; plans are approved, revised (with feedback) or rejected; `ask_user`
 * questions take a free-text answer. Decisions are remembered by request id (port rule: asking
 * again gives the same decision).
 */
import type { JsonValue } from "../../../domain/json.js";
import type { ToolPermissionDecision, ToolPermissions } from "../../../ports/tool-permissions.js";
import type { UserInput, UserInputResponse } from "../../../ports/user-input.js";

/** Asks one question at the prompt and resolves the typed line. */
export type PromptQuestion = (question: string) => Promise<string>;

/** Who answers at `steamharness chat`'s prompt (UI-7): the person at this terminal. */
const AT_THE_TERMINAL = { surface: "chat" } as const;

/**
 * Terminal-backed tool permissions and user input.
 *
 * @example
 * const { toolPermissions, userInput } = createTerminalPorts((q) => rl.question(q));
 */
export function createTerminalPorts(ask: PromptQuestion, out: { write(text: string): void }): { toolPermissions: ToolPermissions; userInput: UserInput } {
  const decisions = new Map<string, ToolPermissionDecision>();
  const answers = new Map<string, UserInputResponse>();
  return {
    toolPermissions: {
      async request(request) {
        const known = decisions.get(request.requestId);
        if (known) return known;
        out.write(`\n? allow ${request.toolId} ${preview(request.arguments)}\n`);
        const reply = (await ask("  approve? [y/N] ")).trim();
        const decision: ToolPermissionDecision = /^(y|yes)$/i.test(reply) ? { outcome: "approved", answeredBy: AT_THE_TERMINAL } : { outcome: "denied", reason: "denied at the terminal", answeredBy: AT_THE_TERMINAL };
        decisions.set(request.requestId, decision);
        return decision;
      },
    },
    userInput: {
      async request(request) {
        const known = answers.get(request.requestId);
        if (known) return known;
        let response: UserInputResponse;
        if (request.kind === "plan") {
          const reply = (await ask("  approve the plan? [y = build / r = revise / N = stop] ")).trim();
          if (/^(y|yes)$/i.test(reply)) response = { outcome: "answered", values: { approved: true } };
          else if (/^r/i.test(reply)) response = { outcome: "answered", values: { approved: false, feedback: await ask("  what should change? ") } };
          else response = { outcome: "declined" };
        } else if (request.kind === "question") {
          out.write(`\n? ${request.message}\n`);
          response = { outcome: "answered", values: { answer: await ask("  answer> ") } };
        } else {
          out.write(`\n? ${request.message}\n`);
          const values: Record<string, JsonValue> = {};
          for (const field of request.fields ?? []) values[field.name] = await ask(`  ${field.name}> `);
          response = { outcome: "answered", values };
        }
        if (response.outcome === "answered" || response.outcome === "declined") response = { ...response, answeredBy: AT_THE_TERMINAL };
        answers.set(request.requestId, response);
        return response;
      },
    },
  };
}

function preview(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
