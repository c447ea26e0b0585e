import type { JsonValue } from "../domain/json.js";

/** A field of a form request. Arrays are `multiple: true`; `options` makes it a choice. */
export interface UserInputField {
  name: string;
  type: "string" | "number" | "boolean" | "file";
  description?: string;
  required?: boolean;
  multiple?: boolean;
  options?: string[];
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

/** An answer, a refusal, a cancellation, or `pending` (the run pauses with `user_input_required`). */
export type UserInputResponse =
  | { outcome: "answered"; values: Record<string, JsonValue> }
  | { outcome: "declined" }
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
