import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { sessionHostDatabasePath } from "../../src/adapters/driven/sqlite/session-host/sqlite-session-host-store.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";

const root = mkdtempSync(join(tmpdir(), "sh-shared-opens-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** How many descriptors of this process are open on `path` (the database file itself, not its -wal/-shm). */
const descriptorsOn = (path: string): number =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(join("/proc/self/fd", fd)) === path;
    } catch {
      return false;
    }
  }).length;

describe("SQLite session backend: one connection per file in a process", () => {
  it("UI-1 the host record and the session log opened twice share one connection; a closed handle rejects with unavailable, the other keeps working, the last close closes the file", async () => {
    const sessions = createSqliteSessionBackend({ agentStoreDir: root });
    const address = { projectId: "p", conversationId: "c1", sessionKey: "agent" };
    const hostPath = sessionHostDatabasePath(root, "c1");
    const logPath = resolveSessionDatabasePath({ ...address, agentStoreDir: root });
    const [hostA, hostB] = [(await sessions.openHostStore("c1", { create: true }))!, (await sessions.openHostStore("c1", { create: false }))!];
    const [logA, logB] = [(await sessions.openUnleased({ address, create: true }))!, (await sessions.openUnleased({ address, create: false }))!];
    expect(descriptorsOn(hostPath)).toBe(1);
    expect(descriptorsOn(logPath)).toBe(1);
    await hostA.insertTask({ taskId: "t1", runId: "run-t1", targetId: 0, prompt: "hi", input: {}, status: "queued", detail: null });
    await logA.append([{ eventId: "run-t1/plan/0", runId: "run-t1", type: "plan", payload: { planIndex: 0, text: "one" } }]);
    await hostA.close();
    await logA.close();
    await expect(hostA.listTasks()).rejects.toMatchObject({ code: "unavailable" });
    await expect(logA.head()).rejects.toMatchObject({ code: "unavailable" });
    expect((await hostB.getTask("t1"))?.prompt).toBe("hi");
    expect((await logB.head()).lastSeq).toBe(1);
    expect(descriptorsOn(hostPath)).toBe(1);
    await hostB.close();
    await logB.close();
    await hostB.close();
    expect(descriptorsOn(hostPath)).toBe(0);
    expect(descriptorsOn(logPath)).toBe(0);
    // Opened again after the last close: a new connection that reads what was written.
    const again = (await sessions.openHostStore("c1", { create: false }))!;
    expect((await again.listTasks()).map((task) => task.taskId)).toEqual(["t1"]);
    await again.close();
    await sessions.close();
  });
});
