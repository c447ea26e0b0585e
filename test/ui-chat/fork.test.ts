// FORK-1 FORK-2 (issue 46): a browser chat forked at a message (POST /v1/ui/chat/{id}/fork) is a
// new chat of the caller's tenant whose history is the prefix up to that message, continued with
// the AI SDK's own client; a repeat of an unsafe call the original made after the point waits for
// a fresh approval (effects counted by the tool itself); another tenant gets 404.
import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { Type } from "@sinclair/typebox";
import { readUIMessageStream, type UIMessage } from "ai";
import { createMemoryApiKeyStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import type { OfflineStep } from "../../src/testing/offline-model.js";
import { chatGateway, chunksOf, finalMessage, streamOf, textOfMessage, TOKEN, transportFor, userMessage, userTexts } from "./helpers.js";

const charges: number[] = [];
/** Not declared replay-safe: each call is an effect. */
const charge: AgentTool = {
  name: "charge", label: "Charge", description: "Charges an amount", parameters: Type.Object({ amount: Type.Number() }),
  async execute(_id, args) {
    charges.push((args as { amount: number }).amount);
    return { content: [{ type: "text", text: `charged ${String((args as { amount: number }).amount)}` }] };
  },
};
const seen: string[][] = [];
/** A user turn asking to charge calls `charge`; after a tool result, or for any other prompt, it answers with the user texts it sees. */
const model = (request: ModelRequest): OfflineStep => {
  seen.push(userTexts(request));
  const last = request.messages.at(-1)!;
  if (last.role === "user" && userTexts(request).at(-1)!.startsWith("charge")) return { text: "Charging.", toolCalls: [{ name: "charge", arguments: { amount: 5 } }] };
  return { text: `seen: ${userTexts(request).join(" | ")}` };
};
const agentOptions = { extraTools: [charge], extraToolCatalog: [{ id: "charge", autoApprove: true }] };
const post = (url: string, body: unknown, secret = TOKEN) => fetch(url, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify(body) });

describe("FORK-1 FORK-2 a browser chat forked at a message", () => {
  it("FORK-1 FORK-2 fork at a user message: the new chat holds the history before it; the AI SDK client continues it and the repeated unsafe charge waits for a fresh approval", async () => {
    const { api } = await chatGateway(model, { agentOptions });
    const transport = transportFor(api);
    const chatId = randomUUID();
    const first = userMessage("hello");
    const send = (id: string, messages: UIMessage[], messageId?: string) => transport.sendMessages({ chatId: id, messages, trigger: "submit-message", messageId, abortSignal: undefined });
    const hello = (await finalMessage(await send(chatId, [first])))!;
    const pay = userMessage("charge 5");
    const paid = (await finalMessage(await send(chatId, [first, hello, pay])))!;
    expect(paid.metadata).toMatchObject({ status: "completed" });
    expect(charges).toEqual([5]);

    const forked = await post(`${api}/${chatId}/fork`, { messageId: pay.id, newId: `${chatId}-b` });
    expect(forked.status).toBe(200);
    const body = (await forked.json()) as { id: string; atSeq: number; hazards: Array<Record<string, unknown>> };
    expect(body.id).toBe(`${chatId}-b`);
    expect(body.hazards).toEqual([expect.objectContaining({ toolName: "charge", arguments: { amount: 5 }, replay: "unsafe", ran: true, summary: expect.stringContaining("charged 5") })]);

    // The AI SDK client continues the fork with the message sent again: the model sees the history before it, once.
    const paused = (await finalMessage(await send(body.id, [first, hello, pay])))!;
    expect(seen.at(-1)).toEqual(["hello", "charge 5"]);
    // The catalog auto-approves charge, but a repeat of the parent's charge is never covered: a fresh decision.
    expect(paused.metadata).toMatchObject({ status: "waiting" });
    const tool = paused.parts.find((part) => part.type === "dynamic-tool")!;
    expect(tool).toMatchObject({ toolName: "charge", input: { amount: 5 }, state: "approval-requested" });
    expect(charges).toEqual([5]);
    const approved = { ...paused, parts: paused.parts.map((part) => (part === tool ? ({ ...part, state: "approval-responded", approval: { id: (part as { approval: { id: string } }).approval.id, approved: true } } as unknown as typeof part) : part)) };
    const chunks = await chunksOf(await send(body.id, [first, hello, pay, approved], paused.id));
    let done: UIMessage = approved;
    for await (const message of readUIMessageStream({ message: structuredClone(approved), stream: streamOf(chunks) as ReadableStream<never> })) done = message;
    expect(done.metadata).toMatchObject({ status: "completed" });
    expect(charges).toEqual([5, 5]);

    // At the assistant message: the fork holds that turn too; a new message sees all of it. The original chat is untouched.
    const after = (await (await post(`${api}/${chatId}/fork`, { messageId: paid.id })).json()) as { id: string; hazards: unknown[] };
    expect(after.hazards).toEqual([]);
    const next = await finalMessage(await send(after.id, [first, hello, pay, paid, userMessage("what now?")]));
    expect(textOfMessage(next)).toBe("seen: hello | charge 5 | what now?");
    const original = await finalMessage(await send(chatId, [first, hello, pay, paid, userMessage("and here?")]));
    expect(textOfMessage(original)).toBe("seen: hello | charge 5 | and here?");
    expect(charges).toEqual([5, 5]);
  }, 60_000);

  it("FORK-1 another tenant's chat is 404 (as an unknown one); a taken id is 409; an unknown message is 404; a bad body is 400 — nothing is written", async () => {
    const apiKeys = createMemoryApiKeyStore();
    const [acme, other] = await Promise.all(["acme", "other"].map((id) => apiKeys.add({ id }, Date.now())));
    const { api } = await chatGateway(model, { agentOptions, apiKeys });
    const chatId = randomUUID();
    const hello = userMessage("hello");
    const answer = (await finalMessage(await transportFor(api, acme!.secret).sendMessages({ chatId, messages: [hello], trigger: "submit-message", messageId: undefined, abortSignal: undefined })))!;
    const stranger = await post(`${api}/${chatId}/fork`, { messageId: hello.id, newId: "mine" }, other!.secret);
    const unknown = await post(`${api}/${randomUUID()}/fork`, { messageId: hello.id, newId: "mine" }, other!.secret);
    expect([stranger.status, unknown.status]).toEqual([404, 404]);
    expect(((await stranger.json()) as { error: { code: string } }).error.code).toBe(((await unknown.json()) as { error: { code: string } }).error.code);
    // The stranger's refused fork left nothing: "mine" is still free for it to use as a chat of its own.
    expect((await (await fetch(`${api}/mine/stream`, { headers: { authorization: `Bearer ${other!.secret}` } })).status)).toBe(404);
    expect((await post(`${api}/${chatId}/fork`, { messageId: "no-such-message" }, acme!.secret)).status).toBe(404);
    expect((await post(`${api}/${chatId}/fork`, { messageId: answer.id, newId: chatId }, acme!.secret)).status).toBe(409);
    expect((await post(`${api}/${chatId}/fork`, { newId: "x" }, acme!.secret)).status).toBe(400);
    const ok = (await (await post(`${api}/${chatId}/fork`, { messageId: answer.id, newId: "copy" }, acme!.secret)).json()) as { id: string };
    expect(ok.id).toBe("copy");
    expect((await post(`${api}/${chatId}/fork`, { messageId: answer.id, newId: "copy" }, acme!.secret)).status).toBe(409);
  }, 60_000);
});
