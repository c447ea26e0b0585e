import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { createMemorySessionBackend } from "../../src/compose/memory-session-backend.js";
import { createPostgresSessionBackend } from "../../src/adapters/driven/postgres/sessions/postgres-session-backend.js";
import { openSqlite } from "../../src/adapters/driven/sqlite/shared/sqlite-connection.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import type { SessionBackend } from "../../src/ports/session-backend.js";
import type { SessionAddress, SessionEvent, SessionEventInput, SessionEventType, SessionStore } from "../../src/ports/session-store.js";
import { runSessionStoreContract } from "../../src/testing/session-store.contract.js";
import { describePostgres } from "../fixtures/postgres.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

const api = { describe, it, expect };

/** A run's events: its start, `n` plan steps and a user message (payloads are opaque JSON to a store). */
function runEvents(runId: string, n: number): SessionEventInput[] {
  return [
    { eventId: `${runId}/start`, runId, type: "run_started", payload: { runId } } as unknown as SessionEventInput,
    ...Array.from({ length: n }, (_, i) => ({ eventId: `${runId}/plan/${i}`, runId, type: "plan" as const, payload: { planIndex: i, text: `${runId} step ${i}` } })),
    { eventId: `${runId}/user`, runId, type: "user_message", payload: { message: { role: "user", content: runId } } },
  ];
}

const comparable = (events: SessionEvent[]) => events.map(({ seq, eventId, runId, type, payload }) => ({ seq, eventId, runId, type, payload }));

async function write(sessions: SessionBackend, address: SessionAddress, events: SessionEventInput[]): Promise<void> {
  const store = (await sessions.openUnleased({ address, create: true }))!;
  try {
    await store.append(events);
  } finally {
    await store.close();
  }
}

/** What a log of `events` answers to a read, worked out from the list alone. */
function expectedRead(events: SessionEvent[], afterSeq: number, types: readonly string[] | undefined, limit: number | undefined, newestFirst: boolean): SessionEvent[] {
  const matching = events.filter((event) => event.seq > afterSeq && (types === undefined || types.includes(event.type)));
  const ordered = newestFirst ? [...matching].reverse() : matching;
  return limit === undefined ? ordered : ordered.slice(0, limit);
}

/** Reads, run reads, gets and the head of `store` against a plain list of its expected events. */
async function expectLog(store: SessionStore, expected: SessionEvent[], lastRunId: string | null, absent: string[]): Promise<void> {
  expect(comparable(await store.readAfter(0))).toEqual(comparable(expected));
  const head = await store.head();
  expect(head.lastSeq).toBe(expected.length);
  expect(head.lastRunId).toBe(lastRunId);
  const typeSets: Array<readonly SessionEventType[] | undefined> = [undefined, ["run_started"], ["plan", "user_message"], ["extension"]];
  for (let after = 0; after <= expected.length; after += 3) {
    for (const types of typeSets) {
      for (const limit of [undefined, 1, 4, 100]) {
        for (const newestFirst of [false, true]) {
          const read = await store.readAfter(after, { ...(types ? { types } : {}), ...(limit === undefined ? {} : { limit }), newestFirst });
          expect({ after, types, limit, newestFirst, events: comparable(read) }).toEqual({ after, types, limit, newestFirst, events: comparable(expectedRead(expected, after, types, limit, newestFirst)) });
        }
      }
    }
  }
  for (const runId of new Set(expected.map((event) => event.runId))) {
    expect(comparable(await store.readRun(runId))).toEqual(comparable(expected.filter((event) => event.runId === runId)));
  }
  for (const event of expected) expect(comparable([(await store.get(event.eventId))!])).toEqual(comparable([event]));
  for (const eventId of absent) expect(await store.get(eventId)).toBeNull();
}

function readThroughSuite(name: string, backend: () => Promise<{ sessions: SessionBackend; rawCount?: (address: SessionAddress) => Promise<number>; removeLog?: (address: SessionAddress) => Promise<void> }>) {
  describe(`FORK-1 read-through on ${name}`, () => {
    it(`FORK-1 ${name}: a fork of a fork reads exactly its prefix through its parents (by seq, type, limit, order, run and id), never what they wrote after the point, and stores only its own events`, async () => {
      const { sessions, rawCount } = await backend();
      try {
        const conversationId = randomUUID();
        const at = (sessionKey: string): SessionAddress => ({ projectId: "p", conversationId, sessionKey });
        const [grand, parent, child] = [at("grand"), at("parent"), at("child")];
        await write(sessions, grand, [...runEvents("g1", 4), ...runEvents("g2", 6), ...runEvents("g3", 3)]);
        const grandLog = await (await sessions.openUnleased({ address: grand, create: false }))!.readAfter(0);
        // The point falls inside run g2: the prefix's last started run is g2.
        await sessions.forkLog!({ from: grand, to: parent, throughSeq: 10 });
        await write(sessions, parent, [...runEvents("p1", 2), { eventId: "g2/plan/5", runId: "g2", type: "plan", payload: { planIndex: 5, text: "the parent's own step 5" } }]);
        await sessions.forkLog!({ from: parent, to: child, throughSeq: 15, append: [{ eventId: "fork/child", runId: "fork", type: "extension", payload: { feature: "fork", data: {} } }] });
        // What the ancestors write after the points stays theirs.
        await write(sessions, grand, runEvents("g4", 2));
        await write(sessions, parent, runEvents("p2", 2));
        const parentLog = await (await sessions.openUnleased({ address: parent, create: false }))!.readAfter(0);
        expect(comparable(parentLog.slice(0, 10))).toEqual(comparable(grandLog.slice(0, 10)));
        // The parent's own g2/plan/5 (seq 15), not the grandparent's (seq 13, after the parent's point).
        expect(parentLog[14]).toMatchObject({ eventId: "g2/plan/5", seq: 15 });

        const store = await sessions.open({ address: child, ownerId: "run-c1" });
        try {
          await expectLog(store, [...parentLog.slice(0, 15), (await store.get("fork/child"))!], "p1", ["g2/plan/4", "g3/start", "g4/start", "p2/start"]);
          // An id the prefix holds is stored already: skipped, its prefix event returned; new ones go on from the head.
          const appended = await store.append([{ eventId: "g1/plan/0", runId: "g1", type: "plan", payload: { planIndex: 0, text: "again" } }, ...runEvents("c1", 1), { eventId: "p1/user", runId: "p1", type: "user_message", payload: { message: { role: "user", content: "again" } } }]);
          expect(appended.appended).toBe(3);
          expect(appended.events.map((event) => event.seq)).toEqual([2, 17, 18, 19, 14]);
          expect(appended.events[0].payload).toEqual(grandLog[1].payload);
          const own = await store.readAfter(16);
          const full = [...parentLog.slice(0, 15), (await store.get("fork/child"))!, ...own];
          await expectLog(store, full, "c1", ["g2/plan/4", "p2/start"]);
        } finally {
          await store.close();
        }
        // Reopened (another handle, unleased): the same log.
        const again = (await sessions.openUnleased({ address: child, create: false }))!;
        try {
          expect((await again.readAfter(0)).map((event) => event.eventId).slice(-4)).toEqual(["fork/child", "c1/start", "c1/plan/0", "c1/user"]);
        } finally {
          await again.close();
        }
        // Nothing of the prefix was copied: the fork's own rows are its record and its own run.
        if (rawCount) expect(await rawCount(child)).toBe(4);
      } finally {
        await sessions.close();
      }
    });

    it(`FORK-1 ${name}: forking validates before writing (unknown parent, point past the head, taken address); SQLite: a fork whose parent's file is gone fails to open with storage_failure`, async () => {
      const { sessions, removeLog } = await backend();
      try {
        const conversationId = randomUUID();
        const parent: SessionAddress = { projectId: "p", conversationId, sessionKey: "parent" };
        const fork: SessionAddress = { ...parent, sessionKey: "fork" };
        await write(sessions, parent, runEvents("r1", 2));
        const code = (promise: Promise<unknown>) => promise.then(() => "resolved", (error: unknown) => (isSteamharnessError(error) ? `${error.code} ${String(error.field)}` : String(error)));
        expect(await code(sessions.forkLog!({ from: { ...parent, sessionKey: "none" }, to: fork, throughSeq: 0 }))).toBe("not_found from");
        expect(await code(sessions.forkLog!({ from: parent, to: fork, throughSeq: 5 }))).toBe("input_validation throughSeq");
        expect(await code(sessions.forkLog!({ from: parent, to: fork, throughSeq: 1.5 }))).toBe("input_validation throughSeq");
        expect(await sessions.openUnleased({ address: fork, create: false })).toBeNull();
        await sessions.forkLog!({ from: parent, to: fork, throughSeq: 2 });
        expect(await code(sessions.forkLog!({ from: parent, to: fork, throughSeq: 1 }))).toBe("conflict to");
        if (removeLog) {
          await removeLog(parent);
          expect(await code(sessions.openUnleased({ address: fork, create: false }))).toBe("storage_failure undefined");
          expect(await code(sessions.open({ address: fork, ownerId: "run-x" }))).toBe("storage_failure undefined");
        }
      } finally {
        await sessions.close();
      }
    });
  });

  describe(`FORK-1 the session store contract on a fork of a fork on ${name}`, () => {
    runSessionStoreContract(api, async () => {
      const { sessions } = await backend();
      const conversationId = randomUUID();
      const [grand, parent, child] = ["grand", "parent", "child"].map((sessionKey) => ({ projectId: "p", conversationId, sessionKey }));
      await write(sessions, grand, []);
      await sessions.forkLog!({ from: grand, to: parent, throughSeq: 0 });
      await sessions.forkLog!({ from: parent, to: child, throughSeq: 0 });
      // Writes the ancestors make later never show in the fork.
      await write(sessions, grand, runEvents("g-after", 1));
      return {
        store: await sessions.open({ address: child, ownerId: "run-contract" }),
        ...(sessions.durable ? { reopen: () => sessions.open({ address: child, ownerId: "run-contract-2" }) } : {}),
        dispose: () => sessions.close(),
      };
    // Memory sessions live as long as their backend object: nothing to reopen across processes.
    }, name === "memory" ? { skip: ["persistence"] } : {});
  });
}

readThroughSuite("memory", async () => ({ sessions: createMemorySessionBackend() }));
readThroughSuite("sqlite", async () => {
  const agentStoreDir = tempDirRemovedAfterAll("fork-read-through-");
  return {
    sessions: createSqliteSessionBackend({ agentStoreDir }),
    async rawCount(address) {
      const client = openSqlite(resolveSessionDatabasePath({ ...address, agentStoreDir }), { readonly: true });
      try {
        return (client.prepare("SELECT count(*) AS n FROM session_events").get() as { n: number }).n;
      } finally {
        client.close();
      }
    },
    async removeLog(address) {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${resolveSessionDatabasePath({ ...address, agentStoreDir })}${suffix}`, { force: true });
    },
  };
});
describePostgres("FORK-1 read-through PostgreSQL", (database) => {
  readThroughSuite("postgres", async () => {
    const schema = database.freshSchema();
    return {
      sessions: createPostgresSessionBackend({ pool: database.pool, schema }),
      async rawCount(address) {
        const result = await database.pool.query(`SELECT count(*)::int AS n FROM "${schema}".agent_session_events e JOIN "${schema}".agent_sessions s ON s.id = e.session_id WHERE s.session_key = $1 AND s.scope = $2`, [address.sessionKey, `c:${address.conversationId}`]);
        return (result.rows[0] as { n: number }).n;
      },
    };
  });
});
