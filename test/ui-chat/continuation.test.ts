import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import type { UIMessage } from "ai";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { chatGateway, finalMessage, textOfMessage, transportFor, userMessage, userTexts } from "./helpers.js";

describe("UI-1 a chat id names a durable conversation the server keeps", () => {
  it("UI-1 whole-history and last-message-only clients continue the same conversation without duplicated turns; a resent message is the same turn; regenerate answers again", async () => {
    const seen: string[][] = [];
    const { api } = await chatGateway((request: ModelRequest) => {
      seen.push(userTexts(request));
      return { text: `answer ${seen.length} to ${userTexts(request).at(-1)}` };
    });
    const transport = transportFor(api);
    const chatId = randomUUID();
    const send = async (messages: UIMessage[], trigger: "submit-message" | "regenerate-message" = "submit-message", messageId?: string) =>
      (await finalMessage(await transport.sendMessages({ chatId, messages, trigger, messageId, abortSignal: undefined })))!;

    const u1 = userMessage("one");
    const a1 = await send([u1]);
    expect(textOfMessage(a1)).toBe("answer 1 to one");
    // An unmodified useChat sends the whole history.
    const u2 = userMessage("two");
    const a2 = await send([u1, a1, u2]);
    expect(textOfMessage(a2)).toBe("answer 2 to two");
    expect(seen[1]).toEqual(["one", "two"]);
    // The AI SDK's persistence setup sends only the last message.
    const u3 = userMessage("three");
    const a3 = await send([u3]);
    expect(textOfMessage(a3)).toBe("answer 3 to three");
    expect(seen[2]).toEqual(["one", "two", "three"]);
    // The same message again (a retried request) is the same turn: no model call, the same answer.
    const again = await send([u1, a1, u2, a2, u3]);
    expect(seen).toHaveLength(3);
    expect(again.id).toBe(a3.id);
    expect(textOfMessage(again)).toBe("answer 3 to three");
    // Regenerate: a new answer to the last user message, as a new assistant message.
    const regenerated = await send([u1, a1, u2, a2, u3], "regenerate-message", a3.id);
    expect(seen).toHaveLength(4);
    expect(regenerated.id).not.toBe(a3.id);
    expect(textOfMessage(regenerated)).toBe("answer 4 to three");
    expect(new Set([a1.id, a2.id, a3.id, regenerated.id]).size).toBe(4);
    // A second regeneration is a turn of its own again, and resending the message then finds the newest answer.
    const twice = await send([u1, a1, u2, a2, u3], "regenerate-message", regenerated.id);
    expect(seen).toHaveLength(5);
    expect(textOfMessage(twice)).toBe("answer 5 to three");
    expect(new Set([a3.id, regenerated.id, twice.id]).size).toBe(3);
    const resent = await send([u1, a1, u2, a2, u3]);
    expect(seen).toHaveLength(5);
    expect(resent.id).toBe(twice.id);
  });
});
