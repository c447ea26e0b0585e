import type { UserInput, UserInputRequest, UserInputResponse } from "../../../ports/user-input.js";
import { createStickyRequests } from "./sticky-requests.js";

type FinalResponse = Exclude<UserInputResponse, { outcome: "pending" }>;

/** Options of {@link createMemoryUserInput}. */
export interface MemoryUserInputOptions {
  /** Scripted responses for requests with none recorded yet. Defaults to `pending`. */
  respond?: (request: UserInputRequest) => UserInputResponse | Promise<UserInputResponse>;
}

/** The in-memory user-input adapter, with host-side controls. */
export interface MemoryUserInput extends UserInput {
  /** Records the final response for a request id; a later `request` with that id returns it. */
  resolve(requestId: string, response: FinalResponse): void;
  /** Every request received, in order (repeats included). */
  readonly requests: readonly UserInputRequest[];
  /** Request ids asked but not yet answered. */
  pending(): string[];
}

/**
 * An in-memory user-input adapter (questions, forms, plan decisions). Same idempotency rule as
 * the approval adapter: a final response sticks to its request id.
 *
 * @example
 * const input = createMemoryUserInput({ respond: () => ({ outcome: "answered", values: { answer: "yes" } }) });
 */
export function createMemoryUserInput(options: MemoryUserInputOptions = {}): MemoryUserInput {
  return createStickyRequests<UserInputRequest, UserInputResponse>(options.respond ?? (() => ({ outcome: "pending" })));
}
