import type { UserInput, UserInputResponse } from "../ports/user-input.js";
import { defineContract, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/** Host-side control of a user-input adapter: records a person's final response. */
export interface UserInputControl {
  respond(requestId: string, response: Exclude<UserInputResponse, { outcome: "pending" }>): Promise<void> | void;
}

const question = (requestId: string) => ({
  requestId,
  runId: uniqueId("run"),
  kind: "question" as const,
  message: "Which colour?",
  fields: [{ name: "answer", type: "string" as const }],
});

const cases: ContractCases<UserInput, UserInputControl> = {
  "an unanswered request is pending": async ({ store, expect }) => {
    expect(await store.request(question(uniqueId("q")))).toEqual({ outcome: "pending" });
  },
  "an answer sticks to its request id only": async ({ store, inspect, expect }) => {
    const a = uniqueId("q");
    const b = uniqueId("q");
    await inspect!.respond(a, { outcome: "answered", values: { answer: "blue" } });
    expect(await store.request(question(a))).toEqual({ outcome: "answered", values: { answer: "blue" } });
    expect(await store.request(question(a))).toEqual({ outcome: "answered", values: { answer: "blue" } });
    expect(await store.request(question(b))).toEqual({ outcome: "pending" });
  },
  "declined and cancelled are final responses": async ({ store, inspect, expect }) => {
    const a = uniqueId("q");
    const b = uniqueId("q");
    await inspect!.respond(a, { outcome: "declined" });
    await inspect!.respond(b, { outcome: "cancelled" });
    expect(await store.request(question(a))).toEqual({ outcome: "declined" });
    expect(await store.request(question(b))).toEqual({ outcome: "cancelled" });
  },
  "an aborted signal rejects the request": async ({ store, expect }) => {
    const controller = new AbortController();
    controller.abort();
    await expect(store.request(question(uniqueId("q")), controller.signal)).rejects.toBeDefined();
  },
};

/**
 * Contract suite for the user-input port: unanswered requests are `pending`; answers, refusals
 * and cancellations stick to their request id only.
 *
 * @example
 * runUserInputContract({ describe, it, expect }, () => {
 *   const store = createMemoryUserInput();
 *   return { store, inspect: { respond: (id, r) => store.resolve(id, r) } };
 * });
 */
export function runUserInputContract(
  api: ContractTestApi,
  factory: ContractFactory<UserInput, UserInputControl>,
  options: ContractOptions<keyof typeof cases & string> = {},
): void {
  defineContract(api, "UserInput", factory, cases, options);
}
