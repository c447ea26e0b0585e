// FORK-1 (issue 46 item 5): the fork tree the viewer draws comes from the recorded pointers — the
// session catalog lists each fork's parent and point (the SQLite file's meta row, PostgreSQL's
// session row: no log read) and `viewerForks` nests them from the session's oldest ancestor.
import { describe, expect, it } from "@jest/globals";
import { createPostgresSessionBackend } from "../../src/adapters/driven/postgres/sessions/postgres-session-backend.js";
import { createPostgresSessionCatalog } from "../../src/adapters/driven/postgres/sessions/postgres-session-catalog.js";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { createSqliteSessionCatalog } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-catalog.js";
import { viewerForks, type ViewerForkNode } from "../../src/adapters/driving/viewer/viewer-forks.js";
import { viewerSessionId } from "../../src/adapters/driving/viewer/viewer-sessions.js";
import { forkSession } from "../../src/app/time-travel/fork-session.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import type { SessionBackend } from "../../src/ports/session-backend.js";
import type { SessionCatalog } from "../../src/ports/session-catalog.js";
import { describePostgres } from "../fixtures/postgres.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

const shape = (node: ViewerForkNode): unknown => [node.address.sessionKey, node.atSeq, node.children.map(shape)];

async function treeCase(sessions: SessionBackend, catalog: SessionCatalog): Promise<void> {
  const root = { projectId: "p", conversationId: "c", sessionKey: "agent" };
  const store = (await sessions.openUnleased({ address: root, create: true }))!;
  await store.append(Array.from({ length: 6 }, (_, i) => ({ eventId: `r/plan/${i}`, runId: "r", type: "plan" as const, payload: { planIndex: i, text: `step ${i}` } })));
  await store.close();
  const a = await forkSession({ sessions, from: root, at: { seq: 2 }, to: { ...root, sessionKey: "a" } });
  const b = await forkSession({ sessions, from: root, at: { seq: 5 }, to: { ...root, sessionKey: "b" } });
  // A fork of a fork, in another conversation: found through its pointer, not its folder.
  const aa = await forkSession({ sessions, from: a.address, at: { seq: 1 }, to: { projectId: "p", conversationId: "elsewhere", sessionKey: "aa" } });
  const listed = await catalog.list({ projectId: "p" });
  expect(Object.fromEntries(listed.map((entry) => [entry.address.sessionKey, entry.forkOf ? [entry.forkOf.address.sessionKey, entry.forkOf.address.conversationId, entry.forkOf.atSeq] : null]))).toEqual({ agent: null, a: ["agent", "c", 2], b: ["agent", "c", 5], aa: ["a", "c", 1] });
  const expected = ["agent", null, [["a", 2, [["aa", 1, []]]], ["b", 5, []]]];
  for (const address of [root, a.address, b.address, aa.address]) expect(shape((await viewerForks(sessions, catalog, viewerSessionId(address))).tree)).toEqual(expected);
  const grandchild = await viewerForks(sessions, catalog, viewerSessionId(aa.address));
  expect(grandchild.fork).toEqual({ parent: { id: viewerSessionId(a.address), address: a.address }, atSeq: 1, effects: "decide", hazards: [] });
  expect((await viewerForks(sessions, catalog, viewerSessionId(root))).fork).toBeNull();
  const missing = await viewerForks(sessions, catalog, viewerSessionId({ ...root, sessionKey: "nobody" })).catch((error: unknown) => error);
  expect(isSteamharnessError(missing, "not_found")).toBe(true);
}

describe("FORK-1 the fork tree from the recorded pointers", () => {
  it("FORK-1 SQLite: the catalog lists each fork's parent and point; the tree nests forks of forks from any of its sessions", async () => {
    const agentStoreDir = tempDirRemovedAfterAll("fork-tree-");
    const sessions = createSqliteSessionBackend({ agentStoreDir });
    const catalog = createSqliteSessionCatalog({ agentStoreDir });
    try {
      await treeCase(sessions, catalog);
    } finally {
      await catalog.close();
      await sessions.close();
    }
  });
});

describePostgres("FORK-1 the fork tree from the recorded pointers on PostgreSQL", (database) => {
  it("FORK-1 PostgreSQL: the catalog joins each fork's parent by its row id; the tree nests forks of forks", async () => {
    const sessions = createPostgresSessionBackend({ pool: database.pool, schema: database.schema });
    const catalog = createPostgresSessionCatalog({ pool: database.pool, schema: database.schema });
    try {
      await treeCase(sessions, catalog);
    } finally {
      await catalog.close();
      await sessions.close();
    }
  });
});
