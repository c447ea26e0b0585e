// BUD-4 tenant separation of gateway conversations: a response (and its conversation) created
// with one API key's tenant cannot be read, continued or answered with another tenant's key —
// each answers exactly as for an unknown id — while its own tenant continues it. A real gateway
// on a loopback port, the official `openai` client.
import { describe, expect, it } from "@jest/globals";
import OpenAI from "openai";
import { createMemoryApiKeyStore } from "../../src/adapters/out/memory/memory-api-keys.js";
import { gatewayWith, MODEL, textOf } from "./helpers.js";

/** The status, code and message a client call rejects with. */
async function failure(call: () => Promise<unknown>): Promise<{ status: unknown; code: unknown; message: string }> {
  try {
    await call();
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the call succeeded");
}

/** A gateway with two tenants' keys; the model asks `ask_user` when told "ask", else echoes. */
async function twoTenants() {
  const apiKeys = createMemoryApiKeyStore();
  const [acme, other] = [await apiKeys.add({ id: "acme" }, Date.now()), await apiKeys.add({ id: "other" }, Date.now())];
  const { gateway } = await gatewayWith(
    (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "toolResult") return { text: `You said ${textOf(last.content)}.` };
      // The user's own words follow the host input block the gateway puts first.
      const said = textOf(last.content).split("</host-input>").pop()!.trim();
      return said === "ask" ? { toolCalls: [{ name: "ask_user", arguments: { question: "Which colour?" } }] } : { text: `echo ${said}` };
    },
    { apiKeys },
  );
  const client = (secret: string) => new OpenAI({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 });
  return { acme: client(acme.secret), other: client(other.secret) };
}

describe("BUD-4 gateway conversations belong to their tenant", () => {
  it("BUD-4 another tenant's previous_response_id and GET /v1/responses/{id} answer as an unknown id; the owner continues", async () => {
    const { acme, other } = await twoTenants();
    const first = await acme.responses.create({ model: MODEL, input: "one" });
    expect(first.output_text).toBe("echo one");
    const unknown = "resp_000000000000000000000000000000000000000000000000";
    const same = (seen: { status: unknown; code: unknown; message: string }, expected: { status: unknown; code: unknown; message: string }) =>
      expect({ ...seen, message: seen.message.replace(first.id, unknown) }).toEqual(expected);
    same(await failure(() => other.responses.create({ model: MODEL, input: "two", previous_response_id: first.id })), await failure(() => other.responses.create({ model: MODEL, input: "two", previous_response_id: unknown })));
    expect((await failure(() => other.responses.create({ model: MODEL, input: "two", previous_response_id: first.id }))).status).toBe(404);
    same(await failure(() => other.responses.retrieve(first.id)), await failure(() => other.responses.retrieve(unknown)));
    expect((await failure(() => other.responses.retrieve(first.id))).status).toBe(404);
    const continued = await acme.responses.create({ model: MODEL, input: "two", previous_response_id: first.id });
    expect(continued.output_text).toBe("echo two");
    expect((await acme.responses.retrieve(first.id)).id).toBe(first.id);
  });

  it("BUD-4 another tenant cannot answer a paused run's request (Responses nor Chat Completions): the same 400 as an unknown request; the owner answers it", async () => {
    const { acme, other } = await twoTenants();
    const paused = await acme.responses.create({ model: MODEL, input: "ask" });
    expect(paused.status).toBe("incomplete");
    const call = paused.output.find((item) => item.type === "function_call") as { call_id: string };
    const answer = (callId: string) => [{ type: "function_call_output" as const, call_id: callId, output: "red" }];
    const stranger = await failure(() => other.responses.create({ model: MODEL, input: answer(call.call_id) }));
    const unknown = await failure(() => other.responses.create({ model: MODEL, input: answer("call_unknown") }));
    expect(stranger.status).toBe(400);
    expect({ ...stranger, message: stranger.message.replace(call.call_id, "call_unknown") }).toEqual(unknown);
    const chat = await failure(() => other.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "ask" }, { role: "tool", tool_call_id: call.call_id, content: "red" }] }));
    expect(chat.status).toBe(400);
    expect(chat.message).toContain("No pending request");
    const answered = await acme.responses.create({ model: MODEL, previous_response_id: paused.id, input: answer(call.call_id) });
    expect(answered.output_text).toBe("You said red.");
  });
});
