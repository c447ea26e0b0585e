import type { UserInput, UserInputResponse } from "../ports/user-input.js";
import { type ContractTestApi, checkSkips, randomTestId } from "./contract-harness.js";

/** What the factory of {@link runUserInputContract} returns. */
export interface UserInputFixture {
  userInput: UserInput;
  /** Records a person's final response the way the host does. */
  respond(requestId: string, response: Exclude<UserInputResponse, { outcome: "pending" }>): Promise<void> | void;
  dispose?(): Promise<void> | void;
}

const SKIPS = ["abort-signal"] as const;

/**
 * Contract suite for the user-input port: unanswered requests are `pending`; answers, refusals
 * and cancellations stick to their request id only.
 *
 * @example
 * runUserInputContract({ describe, it, expect }, () => {
 *   const userInput = createMemoryUserInput();
 *   return { userInput, respond: (id, r) => userInput.resolve(id, r) };
 * });
 */
export function runUserInputContract(
  t: ContractTestApi,
  factory: () => Promise<UserInputFixture> | UserInputFixture,
  options: { skip?: Array<(typeof SKIPS)[number]> } = {},
): void {
  const skipped = checkSkips("UserInput", SKIPS, options.skip);
  const question = (requestId: string) => ({ requestId, runId: randomTestId("run"), kind: "question" as const, message: "Which colour?", fields: [{ name: "answer", type: "string" as const }] });
  const withFixture = (fn: (f: UserInputFixture) => Promise<void>) => async () => {
    const fixture = await factory();
    try {
      await fn(fixture);
    } finally {
      await fixture.dispose?.();
    }
  };

  t.describe("UserInput contract", () => {
    t.it("an unanswered request is pending", withFixture(async ({ userInput }) => {
      t.expect(await userInput.request(question(randomTestId("q")))).toEqual({ outcome: "pending" });
    }));

    t.it("an answer sticks to its request id only", withFixture(async ({ userInput, respond }) => {
      const a = randomTestId("q");
      const b = randomTestId("q");
      await respond(a, { outcome: "answered", values: { answer: "blue" } });
      t.expect(await userInput.request(question(a))).toEqual({ outcome: "answered", values: { answer: "blue" } });
      t.expect(await userInput.request(question(a))).toEqual({ outcome: "answered", values: { answer: "blue" } });
      t.expect(await userInput.request(question(b))).toEqual({ outcome: "pending" });
    }));

    t.it("declined and cancelled are final responses", withFixture(async ({ userInput, respond }) => {
      const a = randomTestId("q");
      const b = randomTestId("q");
      await respond(a, { outcome: "declined" });
      await respond(b, { outcome: "cancelled" });
      t.expect(await userInput.request(question(a))).toEqual({ outcome: "declined" });
      t.expect(await userInput.request(question(b))).toEqual({ outcome: "cancelled" });
    }));

    if (!skipped.has("abort-signal")) {
      t.it("an aborted signal rejects the request", withFixture(async ({ userInput }) => {
        const controller = new AbortController();
        controller.abort();
        await t.expect(userInput.request(question(randomTestId("q")), controller.signal)).rejects.toBeDefined();
      }));
    }
  });
}
