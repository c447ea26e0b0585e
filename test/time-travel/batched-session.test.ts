import path from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import type { Storage } from "../../src/ports/storage.js";
import { batchSessionAppends } from "../../src/app/time-travel/batched-session.js";
import type { SessionEventInput } from "../../src/ports/session-store.js";
import { describePostgres } from "../fixtures/postgres.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

const address = { projectId: "p-batch", sessionKey: "replay-x" };
const clock = { now: () => 1_000 };
const plan = (n: number, runId = "run-1"): SessionEventInput => ({ eventId: `${runId}/plan/${n}`, runId, type: "plan", payload: { planIndex: n, text: `step ${n}` } });

const storages: Storage[] = [];
afterEach(async () => {
  for (const storage of storages.splice(0)) await storage.close();
});

function batchedSuite(family: string, make: () => Promise<Storage>): void {
  async function opened(every?: number) {
    const storage = await make();
    storages.push(storage);
    const sessions = storage.sessions!;
    const inner = await sessions.open({ address, ownerId: "replay-x" });
    await inner.append([plan(0, "run-0")]);
    const store = batchSessionAppends(inner, { clock, ...(every === undefined ? {} : { every }) });
    // What another process reads: only committed events.
    const committed = async () => {
      const reader = (await sessions.openUnleased({ address, create: false }))!;
      try {
        return (await reader.readAfter(0)).map((event) => event.eventId);
      } finally {
        await reader.close();
      }
    };
    return { sessions, store, committed };
  }

  describe(`batched replay appends (${family})`, () => {
    it("REPLAY-1 appends are held and committed together: seqs continue the log, reads see every append, close commits the tail", async () => {
      const { store, committed } = await opened();
      const first = await store.append([plan(1), plan(2), plan(1)]);
      expect(first.appended).toBe(2);
      expect(first.events.map((event) => [event.eventId, event.seq])).toEqual([["run-1/plan/1", 2], ["run-1/plan/2", 3], ["run-1/plan/1", 2]]);
      // A repeat of a held id is skipped, as the port says for stored ids.
      expect((await store.append([plan(2)])).appended).toBe(0);
      expect(await committed()).toEqual(["run-0/plan/0"]);
      // A read through the wrapper commits first, so it sees every append, numbered as promised.
      const read = await store.readRun("run-1");
      expect(read.map((event) => [event.eventId, event.seq])).toEqual([["run-1/plan/1", 2], ["run-1/plan/2", 3]]);
      expect(await committed()).toEqual(["run-0/plan/0", "run-1/plan/1", "run-1/plan/2"]);
      await store.append([plan(3)]);
      expect((await store.head()).lastSeq).toBe(4);
      await store.append([plan(4)]);
      await store.close();
      expect(await committed()).toEqual(["run-0/plan/0", "run-1/plan/1", "run-1/plan/2", "run-1/plan/3", "run-1/plan/4"]);
    });

    it("REPLAY-1 every N held events are committed; writeThrough commits the held ones and each later append at once", async () => {
      const { store, committed } = await opened(2);
      await store.append([plan(1)]);
      expect(await committed()).toHaveLength(1);
      await store.append([plan(2)]);
      expect(await committed()).toHaveLength(3);
      await store.append([plan(3)]);
      await store.writeThrough();
      expect(await committed()).toHaveLength(4);
      const result = await store.append([plan(4)]);
      expect(result.events[0]!.seq).toBe(5);
      expect(await committed()).toHaveLength(5);
      await store.close();
    });

    it("REPLAY-1 bad input is refused at append with nothing held; a commit that meets a stored id fails every later call", async () => {
      const { sessions, store, committed } = await opened();
      await expect(store.append([{ ...plan(1), eventId: "" }])).rejects.toMatchObject({ code: "input_validation" });
      await expect(store.append([{ ...plan(1), payload: { planIndex: 1, text: undefined as unknown as string, bad: () => 1 } as never }])).rejects.toMatchObject({ code: "input_validation" });
      await store.append([plan(0, "run-0"), plan(1)]);
      await expect(store.flush()).rejects.toMatchObject({ code: "storage_failure" });
      await expect(store.append([plan(2)])).rejects.toMatchObject({ code: "storage_failure" });
      await expect(store.readRun("run-1")).rejects.toMatchObject({ code: "storage_failure" });
      await expect(store.close()).rejects.toMatchObject({ code: "storage_failure" });
      expect(await committed()).toEqual(["run-0/plan/0", "run-1/plan/1"]);
      // Closed all the same: the lease is free for the next owner.
      await (await sessions.open({ address, ownerId: "next" })).close();
    });
  });
}

batchedSuite("sqlite", async () => {
  const dir = tempDirRemovedAfterAll("batched-");
  return createSqliteStorage({ directory: path.join(dir, "store"), agentStoreDir: path.join(dir, "agents") });
});
describePostgres("batched replay appends on PostgreSQL", (database) => {
  batchedSuite("postgres", async () => createPostgresStorage({ pool: database.pool, schema: database.freshSchema() }));
});
