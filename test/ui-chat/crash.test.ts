import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cleanEnv, REPO } from "../cli/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import type { UIMessageChunk } from "ai";
import { finalMessage, sleep, TOKEN, transportFor, userMessage } from "./helpers.js";

/**
 * Starts test/ui-chat/fixtures/crash-host.ts on `directory` (bundled, plain `node`); resolves its
 * chat API URL, a promise of the `paused <point>` line, and a SIGKILL that resolves once it exited.
 */
async function crashHost(directory: string, pause = "") {
  const child = spawn(process.execPath, [bundledFixture("test/ui-chat/fixtures/crash-host.ts")], {
    cwd: REPO,
    env: cleanEnv({ CHAT_DIR: directory, CHAT_TOKEN: TOKEN, CHAT_PAUSE: pause }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const line = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const found = pattern.exec(stdout);
        if (found) resolve(found[1]!);
      };
      child.stdout.on("data", (chunk: Buffer) => ((stdout += chunk.toString()), look()));
      look();
      child.once("exit", (code, signal) => reject(new Error(`the chat host exited (${code ?? signal}): ${stderr}`)));
    });
  const url = await line(/listening (\S+)/);
  return {
    api: `${url}/ui/chat`,
    paused: () => line(/paused (\S+)/),
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

const post = (api: string, chatId: string, message: ReturnType<typeof userMessage>) => transportFor(api).sendMessages({ chatId, messages: [message], trigger: "submit-message", messageId: undefined, abortSignal: undefined });

describe("UI-1 a new chat killed before its first chunk", () => {
  it.each([
    ["host", "inside its host's open (the lease and host record made, no context, session log or user message yet)"],
    ["model", "after its user message was stored and the model asked, before any chunk was sent"],
    ["chunk", "after its first text chunk reached the client, before the model step was committed"],
  ])("UI-1 SIGKILL at %s — %s: a new process answers the same chat id and message once, with the message sent once", async (point) => {
    const directory = tempDirRemovedAfterAll("ui-chat-crash-");
    const chatId = randomUUID();
    const message = userMessage(`hello ${point}`);
    const first = await crashHost(directory, point);
    // The process stops at the point, and is killed there: the client has no answer (at `chunk`, the start of one).
    const seen: UIMessageChunk[] = [];
    const request = post(first.api, chatId, message).then(async (stream) => {
      const reader = stream.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) seen.push(next.value);
    });
    expect(await first.paused()).toBe(point);
    if (point === "chunk") while (!seen.some((chunk) => chunk.type === "text-delta")) await sleep(10);
    await first.kill();
    await expect(request).rejects.toThrow();
    expect(seen.some((chunk) => chunk.type === "text-delta")).toBe(point === "chunk");

    const next = await crashHost(directory);
    try {
      const answered = [expect.objectContaining({ type: "text", text: `users=1 last=hello ${point}` })];
      // A reload's resume: a message stored before the kill is answered (its turn recovered by the host the request opens); else no turn.
      const resumed = await transportFor(next.api).reconnectToStream({ chatId });
      if (point === "host") expect(resumed).toBeNull();
      else expect((await finalMessage(resumed!))?.parts.filter((part) => part.type === "text")).toEqual(answered);
      // The client's retry of the same message: its one turn, its text sent to the model once.
      expect((await finalMessage(await post(next.api, chatId, message)))?.parts.filter((part) => part.type === "text")).toEqual(answered);
      // Nothing is left running, and the next message continues the same conversation.
      expect(await transportFor(next.api).reconnectToStream({ chatId })).toBeNull();
      const second = await finalMessage(await post(next.api, chatId, userMessage("again")));
      expect(second?.parts.filter((part) => part.type === "text")).toEqual([expect.objectContaining({ text: "users=2 last=again" })]);
    } finally {
      await next.stop();
    }
  }, 60_000);
});
