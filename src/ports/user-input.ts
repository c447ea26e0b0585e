import type { JsonValue } from "../domain/json.js";
import type { DecisionAnswerer } from "../domain/agent/decision-answerer.js";
import type { WorkflowParamOption } from "../domain/workflow/param-types.js";

/**
 * A field of a form request. Arrays are `multiple: true`; `options` makes it a choice, each a
 * value or `{ value, label }` (the answer holds values; labels are what a person is shown).
 * `integer` takes whole numbers only. `legacyEnumNames` asks an MCP form to send a
 * single-select's labels as the deprecated `enumNames` instead of `oneOf` titles.
 */
export interface UserInputField {
  name: string;
  type: "string" | "number" | "integer" | "boolean" | "file";
  description?: string;
  required?: boolean;
  multiple?: boolean;
  options?: WorkflowParamOption[];
  legacyEnumNames?: boolean;
  default?: JsonValue;
  format?: "date" | "date-time";
}

/**
 * A request to a person: a free-text `question` (`ask_user`), a `form`, or a `plan` decision.
 * `requestId` is stable for the same run and point in the run.
 */
export interface UserInputRequest {
  requestId: string;
  runId: string;
  kind: "question" | "form" | "plan";
  message: string;
  fields?: UserInputField[];
}

/**
 * An answer, a refusal, a cancellation, or `pending` (the run pauses with `user_input_required`).
 * `answeredBy` (optional) says who answered; the run keeps it in its log (UI-7).
 */
export type UserInputResponse =
  | { outcome: "answered"; values: Record<string, JsonValue>; answeredBy?: DecisionAnswerer }
  | { outcome: "declined"; answeredBy?: DecisionAnswerer }
  | { outcome: "cancelled" }
  | { outcome: "pending" };

/**
 * The user-input port behind `context.userInput`. Same idempotency rule as tool permissions:
 * once a request id has a final response, asking again gives that response.
 */
export interface UserInput {
  /** Responds, or answers `pending`. Rejects only on adapter faults or when `signal` aborts. */
  request(request: UserInputRequest, signal?: AbortSignal): Promise<UserInputResponse>;
}
