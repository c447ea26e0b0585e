import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { chatGateway, chunksOf, finalMessage, sleep, streamOf, textOfMessage, transportFor, userMessage, firstCallHeld } from "./helpers.js";

describe("UI-5 a message posted while the chat is busy is queued durably and answered after the running turn", () => {
  it("UI-5 a follow-up posted during a turn is never an error: its stream opens at once, says it is queued, and answers once the first turn ended", async () => {
    const { model, seen, release } = firstCallHeld();
    const { api } = await chatGateway(model);
    const transport = transportFor(api);
    const chatId = randomUUID();
    const first = chunksOf(await transport.sendMessages({ chatId, messages: [userMessage("first")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
    while (seen.length === 0) await sleep(10);
    const followUp = await transport.sendMessages({ chatId, messages: [userMessage("second")], trigger: "submit-message", messageId: undefined, abortSignal: undefined });
    const reader = followUp.getReader();
    // The queued turn says so at once; its `start` follows with its first logged event (whose position names it).
    expect((await reader.read()).value).toMatchObject({ type: "data-queued", transient: true });
    expect(seen).toHaveLength(1);
    release();
    expect((await reader.read()).value).toMatchObject({ type: "start" });
    const rest: unknown[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(next.value);
    expect(textOfMessage(await finalMessage(streamOf(await first)))).toBe("answer to first");
    const second = await finalMessage(streamOf([{ type: "start", messageId: "m" }, ...(rest as never[])]));
    expect(textOfMessage(second)).toBe("answer to first + second");
    expect(seen[1]).toEqual(["first", "second"]);
  });
});
