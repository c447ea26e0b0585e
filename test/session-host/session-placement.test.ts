import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { openAgentSessionHost } from "../../src/app/session-host/create-agent-session-host.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { controlAgentSession, createAgentSessionHost } from "../../src/compose/session-host.js";
import type { NodeContext } from "../../src/domain/node-context.js";
import type { SessionBackend } from "../../src/ports/session-backend.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { conversation, tempDir } from "./helpers.js";

// ARCH-4: where a session lives is decided by one value, the session backend. `agentStoreDir`
// (`--agent-store-dir`) is a SQLite shorthand of the edges — CLI flags and the entry's options —
// that the composition root turns into a backend; the application sees only the backend, and the
// session host takes a factory of its runs' node contexts instead of rebuilding them.

/** Every `.ts` file under a folder. */
const filesUnder = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : name.endsWith(".ts") ? [join(dir, name)] : []));

/** The events of a session read through a backend without its lease (`null` when it was never written). */
async function sessionTexts(sessions: SessionBackend, address: { projectId: string; conversationId: string; sessionKey: string }): Promise<string[] | null> {
  const store = await sessions.openUnleased({ address, create: false });
  if (!store) return null;
  try {
    return (await store.readAfter(0)).filter((event) => event.type === "assistant_message").map((event) => JSON.stringify(event.payload));
  } finally {
    await store.close();
  }
}

describe("ARCH-4 one session-placement knob", () => {
  it("ARCH-4 the application, the domain and the ports never name agentStoreDir nor open a SQLite session folder: only the edges do", () => {
    const naming = ["src/app", "src/domain", "src/ports"].flatMap(filesUnder).filter((file) => /agentStoreDir|agent-store-dir/.test(readFileSync(file, "utf8")));
    expect(naming).toEqual([]);
    // The root's SQLite-folder member of the runtime is the root's to call, never the application's.
    const opening = ["src/app", "src/domain"].flatMap(filesUnder).filter((file) => /sessionsAt/.test(readFileSync(file, "utf8")));
    expect(opening).toEqual([]);
    // The shorthand is still spoken at the edges: the entry's session-host options and the CLI flags.
    expect(readFileSync("src/compose/session-host.ts", "utf8")).toMatch(/agentStoreDir\?: string/);
    expect(readFileSync("src/adapters/driven/worker-process/data-dirs.ts", "utf8")).toContain("--agent-store-dir");
  });

  it("ARCH-4 the session host of the application runs on the backend it is given and takes its runs' contexts from a factory", async () => {
    const dir = tempDir();
    const conv = conversation("placement-app");
    const storage = new MemoryStorage();
    const sessions = createSqliteSessionBackend({ agentStoreDir: dir });
    const made: string[] = [];
    const contextFor = (runId: string, signal: AbortSignal): NodeContext => {
      made.push(runId);
      return createNodeContext({ projectId: "p1", conversationId: conv, storage, runId, signal });
    };
    let released = 0;
    const host = await openAgentSessionHost(conv, { projectId: "p1", sessions, contextFor, models: createOfflineModel({ steps: [{ text: "On the given backend." }] }), onReleased: async () => void released++ });
    const submitted = (await host.control({ type: "submit", prompt: "hello" })) as { taskId: string; runId: string };
    expect((await host.waitForTask(submitted.taskId)).status).toBe("completed");
    await host.close();
    // The tools' context (the host id) and the task's run context came from the factory.
    expect(made).toEqual([host.hostId, submitted.runId]);
    expect(released).toBe(1);
    const address = { projectId: "p1", conversationId: conv, sessionKey: "agent" };
    expect(await sessionTexts(sessions, address)).toEqual([expect.stringContaining("On the given backend.")]);
    // The storage the runs saw keeps no session of its own: the backend alone decided.
    expect(await sessionTexts(storage.sessions, address)).toBeNull();
    await sessions.close();
    await storage.close();
  });

  it("ARCH-4 a session backend passed at the entry decides where sessions live; agentStoreDir at the edge maps to the same SQLite backend", async () => {
    const folder = tempDir();
    const address = (conversationId: string) => ({ projectId: "p1", conversationId, sessionKey: "agent" });
    // 1. The backend given with the storage (a SQLite storage whose sessions are in `folder`).
    const viaBackend = conversation("placement-backend");
    const storage = createSqliteStorage({ directory: tempDir(), agentStoreDir: folder });
    const first = await createAgentSessionHost(viaBackend, { projectId: "p1", storage, models: createOfflineModel({ steps: [{ text: "Through the storage's backend." }] }) });
    const one = (await first.control({ type: "submit", prompt: "hello" })) as { taskId: string };
    expect((await first.waitForTask(one.taskId)).status).toBe("completed");
    await first.close();
    // 2. The shorthand: an in-memory storage for the runs, the sessions in the same folder.
    const viaShorthand = conversation("placement-shorthand");
    const memory = new MemoryStorage();
    const second = await createAgentSessionHost(viaShorthand, { projectId: "p1", storage: memory, agentStoreDir: folder, models: createOfflineModel({ steps: [{ text: "Through the shorthand." }] }) });
    const two = (await second.control({ type: "submit", prompt: "hello" })) as { taskId: string };
    expect((await second.waitForTask(two.taskId)).status).toBe("completed");
    await second.close();
    expect(await sessionTexts(memory.sessions, address(viaShorthand))).toBeNull();
    // Both sessions are in the one SQLite backend on `folder`, whichever knob named it.
    const backend = createSqliteSessionBackend({ agentStoreDir: folder });
    expect(await sessionTexts(backend, address(viaBackend))).toEqual([expect.stringContaining("Through the storage's backend.")]);
    expect(await sessionTexts(backend, address(viaShorthand))).toEqual([expect.stringContaining("Through the shorthand.")]);
    expect(await sessionTexts(storage.sessions, address(viaShorthand))).toEqual([expect.stringContaining("Through the shorthand.")]);
    // And one durable inbox: a command left through the shorthand and one through the storage queue up in the same host record.
    const stored = await controlAgentSession(viaBackend, { type: "cancel" }, { agentStoreDir: folder, timeoutMs: 0 });
    const next = await controlAgentSession(viaBackend, { type: "cancel" }, { storage, timeoutMs: 0 });
    expect([stored, next]).toEqual([{ type: "stored", command: "cancel", seq: 1 }, { type: "stored", command: "cancel", seq: 2 }]);
    await backend.close();
    await memory.close();
    await storage.close();
  });
});
