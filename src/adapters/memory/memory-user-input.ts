import type { UserInput, UserInputRequest, UserInputResponse } from "../../ports/user-input.js";

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
  const answered = new Map<string, FinalResponse>();
  const asked = new Set<string>();
  const requests: UserInputRequest[] = [];
  return {
    requests,
    async request(request, signal) {
      signal?.throwIfAborted();
      requests.push(structuredClone(request));
      const known = answered.get(request.requestId);
      if (known) return known;
      const response = options.respond ? await options.respond(request) : { outcome: "pending" as const };
      if (response.outcome === "pending") asked.add(request.requestId);
      else answered.set(request.requestId, response);
      return response;
    },
    resolve(requestId, response) {
      answered.set(requestId, response);
      asked.delete(requestId);
    },
    pending: () => [...asked],
  };
}
