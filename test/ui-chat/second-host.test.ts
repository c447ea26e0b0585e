import { expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { cleanEnv, REPO } from "../cli/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { describePostgres } from "../fixtures/postgres.js";
import { chatGateway, chunksOf, finalMessage, longTurnModel, streamOf, TOKEN, transportFor, userMessage } from "./helpers.js";

/**
 * Starts the second host (test/ui-chat/fixtures/chat-host.ts, bundled: plain `node` starts it in a
 * tenth of the CPU tsx takes to compile our sources) on `schema`; resolves its `/v1` URL and a stop.
 */
async function secondHost(url: string, schema: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [bundledFixture("test/ui-chat/fixtures/chat-host.ts")], {
    cwd: REPO,
    env: cleanEnv({ CHAT_HOST_POSTGRES_URL: url, CHAT_HOST_SCHEMA: schema, CHAT_HOST_TOKEN: TOKEN, CHAT_HOST_WORKDIR: tempDirRemovedAfterAll("ui-chat-host-") }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const address = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = /listening (\S+)/.exec(stdout);
      if (found) resolve(found[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the second host exited (${code}): ${stderr}`)));
  });
  return {
    url: address,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

describePostgres("UI-2 a chat's stream is served by any host on the same PostgreSQL", (database) => {
  it("UI-2 a turn running on one gateway is resumed by a second gateway process: the same chunks from `start`, live to the end", async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    // The second process first, so the turn is still running when it is asked for the stream.
    const other = await secondHost(database.url, database.schema);
    const { api } = await chatGateway(longTurnModel(12, 40), { storage, rateLimit: false });
    try {
      const chatId = randomUUID();
      const first = chunksOf(await transportFor(api).sendMessages({ chatId, messages: [userMessage("go")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
      // The second process reads the log the first one writes: a replay from `start`, then live.
      const resumed = await transportFor(`${other.url}/ui/chat`).reconnectToStream({ chatId });
      expect(resumed).not.toBeNull();
      const [original, replay] = await Promise.all([first, chunksOf(resumed!)]);
      expect(replay).toEqual(original);
      const message = (await finalMessage(streamOf(original)))!;
      expect(message.parts.filter((part) => part.type === "dynamic-tool")).toHaveLength(12);
      expect(await finalMessage(streamOf(replay))).toEqual(message);
      expect(await transportFor(`${other.url}/ui/chat`).reconnectToStream({ chatId })).toBeNull();
    } finally {
      await other.stop();
      await storage.close();
    }
  }, 60_000);

  it("UI-3 a stop posted to the second process stops the turn the first one runs (through the chat host's durable inbox)", async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    const other = await secondHost(database.url, database.schema);
    const { api } = await chatGateway(longTurnModel(200, 20), { storage, rateLimit: false });
    try {
      const chatId = randomUUID();
      const first = chunksOf(await transportFor(api).sendMessages({ chatId, messages: [userMessage("go")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
      const stopped = await fetch(`${other.url}/ui/chat/${chatId}/stop`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } });
      expect(await stopped.json()).toEqual({ stopped: true });
      const chunks = await first;
      expect(chunks.at(-1)).toEqual({ type: "abort", reason: "stopped" });
      expect(chunks.filter((chunk) => chunk.type === "tool-input-available").length).toBeLessThan(200);
    } finally {
      await other.stop();
      await storage.close();
    }
  }, 60_000);
});
