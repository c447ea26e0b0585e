import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { createMemoryApiKeyStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { chatGateway, chunksOf, finalMessage, textOfMessage, transportFor, userMessage, userTexts } from "./helpers.js";

describe("UI-1 chats belong to their tenant", () => {
  it("UI-1 another tenant's credential is refused on every route: its GET and stop answer as for an unknown chat (404), its POST opens its own chat; a bad key is 401 everywhere", async () => {
    const apiKeys = createMemoryApiKeyStore();
    const [acme, other] = await Promise.all(["acme", "other"].map((id) => apiKeys.add({ id }, Date.now())));
    const seen: string[][] = [];
    const { api } = await chatGateway((request: ModelRequest) => {
      seen.push(userTexts(request));
      return { text: `you said ${userTexts(request).join(", ")}` };
    }, { apiKeys });
    const chatId = randomUUID();
    const mine = await finalMessage(await transportFor(api, acme!.secret).sendMessages({ chatId, messages: [userMessage("secret plan")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
    expect(textOfMessage(mine)).toBe("you said secret plan");
    const as = (secret: string) => ({ authorization: `Bearer ${secret}` });
    const unknown = randomUUID();
    for (const path of ["stream", "stream?after=0"]) {
      const stranger = await fetch(`${api}/${chatId}/${path}`, { headers: as(other!.secret) });
      const none = await fetch(`${api}/${unknown}/${path}`, { headers: as(other!.secret) });
      expect(stranger.status).toBe(404);
      expect(((await stranger.json()) as { error: { message: string } }).error.message.replace(chatId, unknown)).toBe(((await none.json()) as { error: { message: string } }).error.message);
    }
    expect((await fetch(`${api}/${chatId}/stop`, { method: "POST", headers: as(other!.secret) })).status).toBe(404);
    // The owner reads its own chat's last turn.
    expect((await fetch(`${api}/${chatId}/stream?after=0`, { headers: as(acme!.secret) })).status).toBe(200);
    // The same chat id under another tenant is that tenant's own conversation: none of acme's history.
    const theirs = await finalMessage(await transportFor(api, other!.secret).sendMessages({ chatId, messages: [userMessage("hello")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
    expect(textOfMessage(theirs)).toBe("you said hello");
    expect(seen.at(-1)).toEqual(["hello"]);
    // A key nobody issued: 401 on every route.
    const bad = as("shk_not_a_real_key_0000000000000000");
    expect((await fetch(api, { method: "POST", headers: { ...bad, "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages: [userMessage("x")] }) })).status).toBe(401);
    expect((await fetch(`${api}/${chatId}/stream`, { headers: bad })).status).toBe(401);
    expect((await fetch(`${api}/${chatId}/stop`, { method: "POST", headers: bad })).status).toBe(401);
  });

  it("UI-1 BUD-4 a key tenant's chat turns reserve against its own budget: a turn it cannot afford ends with an error chunk before the model is called, other tenants unaffected", async () => {
    const apiKeys = createMemoryApiKeyStore();
    const [tiny, rich] = await Promise.all([apiKeys.add({ id: "tiny", budgetTokens: 10 }, Date.now()), apiKeys.add({ id: "rich" }, Date.now())]);
    let calls = 0;
    const { api } = await chatGateway(() => {
      calls++;
      return { text: "answered", usage: { input: 30, output: 20 } };
    }, { apiKeys });
    const chunks = await chunksOf(await transportFor(api, tiny!.secret).sendMessages({ chatId: randomUUID(), messages: [userMessage("hi")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
    expect(calls).toBe(0);
    expect(chunks.find((chunk) => chunk.type === "error")).toMatchObject({ errorText: expect.stringMatching(/budget/i) });
    const served = await finalMessage(await transportFor(api, rich!.secret).sendMessages({ chatId: randomUUID(), messages: [userMessage("hi")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
    expect(textOfMessage(served)).toBe("answered");
    expect(calls).toBe(1);
  });
});
