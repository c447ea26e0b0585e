// BUD-4 tenant separation of gateway conversations: a response (and its conversation) created
// with one API key's tenant cannot be read, continued or answered with another tenant's key —
// each answers exactly as for an unknown id — while its own tenant continues it. TEN-4: every
// request is one principal (`key:<tenant>`, or `token:static` for the single token), and a
// tenant opening conversations evicts its own before anyone else's. A real gateway on a loopback
// port, the official `openai` client.
import { describe, expect, it } from "@jest/globals";
import OpenAI from "openai";
import { createMemoryApiKeyStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import type { ResponsesGatewayOptions } from "../../src/adapters/driving/gateway/gateway.js";
import { gatewayWith, MODEL, textOf, TOKEN } from "./helpers.js";
import { openAIFailure as failure } from "../fixtures/openai-error-body.js";

/** A gateway with tenants' keys (acme, other, and `tenants`); the model asks `ask_user` when told "ask", else echoes. */
async function twoTenants(options: Partial<ResponsesGatewayOptions> = {}, ...tenants: string[]) {
  const apiKeys = createMemoryApiKeyStore();
  const [acme, other, ...more] = await Promise.all(["acme", "other", ...tenants].map((id) => apiKeys.add({ id }, Date.now())));
  const { gateway } = await gatewayWith(
    (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "toolResult") return { text: `You said ${textOf(last.content)}.` };
      // The user's own words follow the host input block the gateway puts first.
      const said = textOf(last.content).split("</host-input>").pop()!.trim();
      return said === "ask" ? { toolCalls: [{ name: "ask_user", arguments: { question: "Which colour?" } }] } : { text: `echo ${said}` };
    },
    { apiKeys, ...options },
  );
  const client = (secret: string) => new OpenAI({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 });
  return { acme: client(acme!.secret), other: client(other!.secret), more: more.map((key) => client(key.secret)), token: client(TOKEN), gateway };
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

describe("TEN-4 gateway conversations belong to their principal's tenant", () => {
  /** Whether a response (and so its conversation) is still kept for `client`. */
  const kept = async (client: OpenAI, id: string) => client.responses.retrieve(id).then(() => true, (error: unknown) => {
    if (error instanceof OpenAI.APIError && error.status === 404) return false;
    throw error;
  });

  it("TEN-4: the single token is one principal (token:static) apart from every key: a key whose tenant is named 'static' or 'token' gets 404 for the token holder's response, and the token holder for the key's", async () => {
    const { token, more } = await twoTenants({}, "static", "token");
    const mine = await token.responses.create({ model: MODEL, input: "one" });
    for (const key of more) {
      expect((await failure(() => key.responses.retrieve(mine.id))).status).toBe(404);
      expect((await failure(() => key.responses.create({ model: MODEL, input: "two", previous_response_id: mine.id }))).status).toBe(404);
      const theirs = await key.responses.create({ model: MODEL, input: "three" });
      expect((await failure(() => token.responses.retrieve(theirs.id))).status).toBe(404);
    }
    expect((await token.responses.create({ model: MODEL, input: "two", previous_response_id: mine.id })).output_text).toBe("echo two");
  });

  it("TEN-4: a tenant opening conversations beyond maxConversationsPerTenant evicts only its own least recently used one; another tenant's stays", async () => {
    const { acme, other } = await twoTenants({ maxConversations: 100, maxConversationsPerTenant: 2 });
    const theirs = await other.responses.create({ model: MODEL, input: "theirs" });
    const ids: string[] = [];
    for (const input of ["a", "b", "c", "d"]) ids.push((await acme.responses.create({ model: MODEL, input })).id);
    expect([await kept(acme, ids[0]!), await kept(acme, ids[1]!), await kept(acme, ids[2]!), await kept(acme, ids[3]!)]).toEqual([false, false, true, true]);
    expect(await kept(other, theirs.id)).toBe(true);
    expect((await other.responses.create({ model: MODEL, input: "on", previous_response_id: theirs.id })).output_text).toBe("echo on");
  });

  it("TEN-4: at maxConversations a new conversation evicts from the tenant holding most, never a smaller tenant's", async () => {
    const { acme, other, more } = await twoTenants({ maxConversations: 3, maxConversationsPerTenant: 3 }, "third");
    // other's is the least recently used of all: plain LRU would evict it.
    const o1 = await other.responses.create({ model: MODEL, input: "o1" });
    const [a1, a2] = [await acme.responses.create({ model: MODEL, input: "a1" }), await acme.responses.create({ model: MODEL, input: "a2" })];
    const t1 = await more[0]!.responses.create({ model: MODEL, input: "t1" });
    expect([await kept(acme, a1.id), await kept(acme, a2.id), await kept(other, o1.id), await kept(more[0]!, t1.id)]).toEqual([false, true, true, true]);
    await expect(twoTenants({ maxConversationsPerTenant: 0 })).rejects.toMatchObject({ code: "input_validation", field: "maxConversationsPerTenant" });
  });
});
