import { afterAll, describe, expect, it } from "@jest/globals";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionLeaseProvider } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-lease.js";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import type { SessionAddress } from "../../src/ports/session-store.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const root = mkdtempSync(join(tmpdir(), "sh-session-pool-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const peer = join(process.cwd(), "test", "sessions", "fixtures", "pool-peer.ts");
let folders = 0;
const folder = () => join(root, `case-${folders++}`);
const address = (conversationId = "c"): SessionAddress => ({ projectId: "p", conversationId, sessionKey: "agent" });
const plan = (runId: string, i: number) => ({ eventId: `${runId}/plan/${i}`, runId, type: "plan" as const, payload: { planIndex: i, text: "x" } });
const codeOf = (promise: Promise<unknown>) => promise.then(() => "resolved", (error: { code?: string }) => error.code ?? String(error));
/** This process's open descriptors on files under `dir`. */
const openFilesUnder = (dir: string) =>
  readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });

describe("SQLite session backend: warm sessions kept open between runs", () => {
  it("SES-2 a held session is refused to a second open and to the lease provider in this process; free again after close", async () => {
    const agentStoreDir = folder();
    const pool = createSqliteSessionBackend({ agentStoreDir });
    const leases = createSqliteSessionLeaseProvider({ agentStoreDir });
    const first = await pool.open({ address: address(), ownerId: "run-1" });
    expect(await codeOf(pool.open({ address: address(), ownerId: "run-2" }))).toBe("session_busy");
    expect(await leases.acquire(address(), { ownerId: "other" })).toBeNull();
    // Two opens racing in one tick: exactly one gets the session.
    await first.close();
    const raced = await Promise.allSettled([pool.open({ address: address(), ownerId: "a" }), pool.open({ address: address(), ownerId: "b" })]);
    expect(raced.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((raced.find((r) => r.status === "rejected") as PromiseRejectedResult).reason.code).toBe("session_busy");
    await (raced.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ close(): Promise<void> }>).value.close();
    const lease = await leases.acquire(address(), { ownerId: "other" });
    expect(lease?.isHeld()).toBe(true);
    expect(await codeOf(pool.open({ address: address(), ownerId: "run-3" }))).toBe("session_busy");
    await lease!.release();
    const again = await pool.open({ address: address(), ownerId: "run-3" });
    await again.close();
    await pool.close();
  });

  it("SES-2 a session held by another process is busy for the pool, and free once that process is killed", async () => {
    const agentStoreDir = folder();
    const pool = createSqliteSessionBackend({ agentStoreDir });
    const warm = await pool.open({ address: address(), ownerId: "run-1" });
    await warm.append([plan("run-1", 0)]);
    await warm.close();
    const path = resolveSessionDatabasePath({ ...address(), agentStoreDir });
    const holder = spawn(process.execPath, [bundledFixture(peer), "hold", path], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => holder.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("holding") && resolve()));
    expect(await codeOf(pool.open({ address: address(), ownerId: "run-2" }))).toBe("session_busy");
    const exited = new Promise((resolve) => holder.on("exit", resolve));
    holder.kill("SIGKILL");
    await exited;
    const store = await pool.open({ address: address(), ownerId: "run-2" });
    expect((await store.head()).lastSeq).toBe(1);
    await store.close();
    await pool.close();
  }, 30_000);

  it("SES-1 a warm session reads what another process appended while it was idle, and appends after it", async () => {
    const agentStoreDir = folder();
    const pool = createSqliteSessionBackend({ agentStoreDir });
    const first = await pool.open({ address: address(), ownerId: "run-1" });
    await first.append([plan("run-1", 0), plan("run-1", 1)]);
    await first.close();
    const path = resolveSessionDatabasePath({ ...address(), agentStoreDir });
    const appended = spawnSync(process.execPath, [bundledFixture(peer), "append", path, "peer-run", "3"], { encoding: "utf8" });
    expect(JSON.parse(appended.stdout)).toEqual({ appended: 3 });
    const second = await pool.open({ address: address(), ownerId: "run-2" });
    expect((await second.head()).lastSeq).toBe(5);
    expect((await second.readRun("peer-run")).map((event) => event.seq)).toEqual([3, 4, 5]);
    const { events } = await second.append([plan("run-2", 0)]);
    expect(events[0]!.seq).toBe(6);
    await second.close();
    await pool.close();
  }, 30_000);

  it("SES-1 a session file removed while idle is opened afresh, not written into the removed file", async () => {
    const agentStoreDir = folder();
    const pool = createSqliteSessionBackend({ agentStoreDir });
    const first = await pool.open({ address: address(), ownerId: "run-1" });
    await first.append([plan("run-1", 0)]);
    await first.close();
    rmSync(agentStoreDir, { recursive: true, force: true });
    const second = await pool.open({ address: address(), ownerId: "run-2" });
    expect((await second.head()).lastSeq).toBe(0);
    await second.append([plan("run-2", 0)]);
    await second.close();
    await pool.close();
    // The new file holds the new event: a fresh process-independent open reads it.
    const check = createSqliteSessionBackend({ agentStoreDir });
    const reader = await check.open({ address: address(), ownerId: "reader" });
    expect((await reader.readAfter(0)).map((event) => event.eventId)).toEqual(["run-2/plan/0"]);
    await reader.close();
    await check.close();
  });

  it("keeps at most maxIdle idle sessions open and closes every file on close()", async () => {
    const agentStoreDir = folder();
    const pool = createSqliteSessionBackend({ agentStoreDir, maxIdleSessions: 2 });
    for (const conversation of ["c1", "c2", "c3", "c4"]) {
      const store = await pool.open({ address: address(conversation), ownerId: `run-${conversation}` });
      await store.append([plan(`run-${conversation}`, 0)]);
      await store.close();
    }
    const sessionFiles = (files: string[]) => new Set(files.filter((file) => file.endsWith(".sqlite")));
    // The two most recently used sessions stay open (their database files), the others were closed.
    const open = [...sessionFiles(openFilesUnder(agentStoreDir))].map((file) => file.split("/").at(-2));
    expect(open.sort()).toEqual([expect.stringMatching(/^c3-/), expect.stringMatching(/^c4-/)]);
    await pool.close();
    expect(openFilesUnder(agentStoreDir)).toEqual([]);
    expect(await codeOf(pool.open({ address: address(), ownerId: "late" }))).toBe("unavailable");
  });

  it("a released store rejects with unavailable; a store whose call failed is reopened clean for the next run", async () => {
    const agentStoreDir = folder();
    const pool = createSqliteSessionBackend({ agentStoreDir });
    const first = await pool.open({ address: address(), ownerId: "run-1" });
    await first.append([plan("run-1", 0)]);
    expect(await codeOf(first.append([{ eventId: "", runId: "run-1", type: "plan", payload: {} } as never]))).toBe("input_validation");
    await first.close();
    await first.close();
    expect(await codeOf(first.head())).toBe("unavailable");
    const second = await pool.open({ address: address(), ownerId: "run-2" });
    expect((await second.readAfter(0)).map((event) => event.eventId)).toEqual(["run-1/plan/0"]);
    await second.close();
    await pool.close();
  });

  it("SES-1 the SQLite storage serves runs from its pool and closes it with the storage", async () => {
    const directory = folder();
    const storage = createSqliteStorage({ directory });
    const store = await storage.sessions!.open({ address: address(), ownerId: "run-1" });
    await store.append([plan("run-1", 0)]);
    await store.close();
    expect(openFilesUnder(storage.agentStoreDir!).length).toBeGreaterThan(0);
    await storage.close();
    expect(openFilesUnder(storage.agentStoreDir!)).toEqual([]);
  });
});
