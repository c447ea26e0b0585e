import { describe, expect, it } from "@jest/globals";
import { createUiChatHandlers } from "../../src/compose/gateway.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { sleep, sqliteStorage, userMessage } from "./helpers.js";

const post = (chatId: string, text: string) =>
  new Request("http://localhost/v1/ui/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages: [userMessage(text)], trigger: "submit-message" }) });

describe("UI-1 many chats do not grow the host without bound", () => {
  it("UI-1 past maxResidentHosts an idle chat's host is closed for a new chat; while every host is busy a new chat gets 429 with a JSON error, and nothing is lost", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const offline = createOfflineModel({ steps: () => ({ text: "done" }) });
    const storage = await sqliteStorage();
    const chat = createUiChatHandlers({
      agent: {
        models: { descriptor: offline.descriptor, async *stream(request, signal) { if (JSON.stringify(request.messages).includes("slow")) await gate; yield* offline.stream(request, signal); } },
        retryDelayMs: 0,
        workdir: tempDirRemovedAfterAll("ui-chat-work-"),
      },
      projectId: "ui-chat-bound",
      storage,
      maxResidentHosts: 1,
    });
    try {
      // A finished chat's host is idle: a second chat takes its place.
      expect(await (await chat.POST(post("a", "quick"))).text()).toContain("done");
      const busy = await chat.POST(post("b", "slow"));
      expect(busy.status).toBe(200);
      const reading = busy.text();
      await sleep(50);
      // Chat b's turn runs: no host is idle, so chat c is refused, typed, before anything is written.
      const refused = await chat.POST(post("c", "quick"));
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ error: { code: "rate_limited", type: "rate_limit_error" } });
      expect((await chat.GET(new Request("http://localhost/v1/ui/chat/c/stream"))).status).toBe(404);
      release();
      expect(await reading).toContain("done");
      // Once b's turn ended its host is idle: c is served, and a (closed earlier) continues its history.
      expect(await (await chat.POST(post("c", "quick"))).text()).toContain("done");
      expect(await (await chat.POST(post("a", "quick again"))).text()).toContain("done");
    } finally {
      release();
      await chat.close();
    }
  });
});
