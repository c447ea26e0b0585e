import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import type { AgentSessionTaskRecord } from "../../src/domain/session-host/host-state.js";
import type { SessionBackend } from "../../src/ports/session-backend.js";
import type { AgentSessionHostStore } from "../../src/ports/session-host-store.js";
import type { Storage } from "../../src/ports/storage.js";
import { chatGateway, chunksOf, sqliteStorage, transportFor, userMessage } from "./helpers.js";

/** The task rows each task read of the chat's host records returned, in call order. */
interface TaskReads {
  rows: number[];
  conversationIds: string[];
}

/** `storage` whose host records count the task rows each read returns (every method that reads tasks). */
function countingTaskReads(storage: Storage, reads: TaskReads): Storage {
  const sessions = storage.sessions!;
  const countingStore = (store: AgentSessionHostStore): AgentSessionHostStore =>
    new Proxy(store, {
      get(target, name) {
        const value = Reflect.get(target, name) as unknown;
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const result = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
          if (name === "listTasks" || name === "findTasks" || name === "queuedSteerTasks") reads.rows.push((result as AgentSessionTaskRecord[]).length);
          return result;
        };
      },
    });
  const backend = new Proxy(sessions, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (name !== "openHostStore") return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return async (conversationId: string, options: { create: boolean }) => {
        reads.conversationIds.push(conversationId);
        const store = await target.openHostStore(conversationId, options);
        return store && countingStore(store);
      };
    },
  }) as SessionBackend;
  return new Proxy(storage, { get: (target, name) => (name === "sessions" ? backend : Reflect.get(target, name)) });
}

describe("UI-2 a chat turn's reads do not grow with the chat's history", () => {
  it("UI-2 with 300 earlier turns recorded, a turn reads no more task rows than with 1: every task read is an indexed query of the unfinished or last tasks", async () => {
    const storage = await sqliteStorage();
    const reads: TaskReads = { rows: [], conversationIds: [] };
    const { api } = await chatGateway(() => ({ text: "ok" }), { storage: countingTaskReads(storage, reads) });
    const transport = transportFor(api);
    const chatId = randomUUID();
    const turn = async (text: string) => {
      reads.rows.length = 0;
      await chunksOf(await transport.sendMessages({ chatId, messages: [userMessage(text)], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
      return [...reads.rows];
    };
    // The first turn opens the chat's record and resident host; the second is a turn with a history of one.
    await turn("first");
    const short = await turn("second");
    // 300 earlier turns, ended, in the same record (written by another store on it, as another process would).
    const record = (await storage.sessions!.openHostStore(reads.conversationIds.at(-1)!, { create: false }))!;
    for (let index = 0; index < 300; index += 1) {
      await record.insertTask({ taskId: `ui.old-${index}`, runId: `run-ui.old-${index}`, targetId: 0, prompt: `old ${index}`, input: {}, status: "completed", detail: null });
    }
    expect((await record.listTasks()).length).toBe(302);
    await record.close();
    const long = await turn("third");

    expect(short.length).toBeGreaterThan(0);
    expect(long.length).toBeGreaterThan(0);
    // Each read returns the turn's own unfinished task or the last one at most, whatever the history.
    expect(Math.max(...short)).toBeLessThanOrEqual(2);
    expect(Math.max(...long)).toBeLessThanOrEqual(2);
    // In total (the number of reads depends on timing: polls, step boundaries), far below one history's worth.
    expect(long.reduce((sum, rows) => sum + rows, 0)).toBeLessThan(100);
  });
});
