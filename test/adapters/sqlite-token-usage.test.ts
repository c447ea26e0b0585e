import { afterAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKvTokenUsage } from "../../src/adapters/driven/kernel/kv-token-usage.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import type { Storage } from "../../src/ports/storage.js";
import { runTokenUsageContract } from "../../src/testing/token-usage.contract.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const root = mkdtempSync(join(tmpdir(), "sh-sqlite-usage-"));
const opened: Storage[] = [];
let stores = 0;
const open = () => {
  const storage = createSqliteStorage({ directory: join(root, `store-${stores++}`) });
  opened.push(storage);
  return storage;
};
afterAll(async () => {
  for (const storage of opened) await storage.close();
  rmSync(root, { recursive: true, force: true });
});
const entry = (entryId: string, total = 5) => ({ entryId, runId: "run-1", provider: "offline", model: "m", at: 1, input: total - 2, output: 2, cacheRead: 0, cacheWrite: 0, total });

runTokenUsageContract({ describe, it, expect }, () => ({ store: open().tokenUsage!({ projectId: "p" }) }));
runTokenUsageContract({ describe, it, expect }, () => ({ store: open().tokenUsage!({ projectId: "p", conversationId: "c" }) }));

describe("SQLite token usage (one transaction per record)", () => {
  it("AG-2 node contexts on a SQLite storage use it; its keys and values are those of the KV recorder, and the two count an entry once between them", async () => {
    const storage = open();
    const ns = { projectId: "p" };
    const context = createNodeContext({ projectId: "p", storage });
    const kvRecorder = createKvTokenUsage(storage.kv, ns);
    expect(await context.tokenUsage.record(entry("a"))).toBe(true);
    expect((await storage.kv.get(ns, "tokenUsage.entry.a"))?.value).toEqual(entry("a"));
    expect(await kvRecorder.record(entry("a"))).toBe(false);
    expect(await kvRecorder.record(entry("b", 7))).toBe(true);
    expect(await context.tokenUsage.record(entry("b", 7))).toBe(false);
    expect(await kvRecorder.total()).toEqual({ input: 8, output: 4, cacheRead: 0, cacheWrite: 0, total: 12 });
    expect(await context.tokenUsage.total()).toEqual(await kvRecorder.total());
    expect((await storage.kv.get(ns, "tokenUsage.total"))?.value).toMatchObject({ total: 12, entries: 2, recent: ["b"] });
  });

  it("AG-2 a refused entry id (too long for a KV key) writes nothing", async () => {
    const recorder = open().tokenUsage!({ projectId: "p" });
    const code = await recorder.record(entry("x".repeat(2000))).then(() => null, (error: { code?: string }) => error.code);
    expect(code).toBe("input_validation");
    expect((await recorder.total()).total).toBe(0);
  });

  it("AG-2 four processes recording overlapping entries count each entry exactly once (a KV-recorder process beside them on other entries)", async () => {
    const directory = join(root, "shared");
    createSqliteStorage({ directory }).close();
    const run = (kind: string, first: number) =>
      new Promise<number>((resolve, reject) => {
        const child = spawn(process.execPath, [bundledFixture(join("test", "adapters", "fixtures", "usage-recorder.ts")), directory, kind, String(first), "60"], { stdio: ["ignore", "pipe", "inherit"] });
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
        child.on("exit", (code) => (code === 0 ? resolve((JSON.parse(out) as { counted: number }).counted) : reject(new Error(`recorder exited ${code}`))));
      });
    // Entries e0..e59 are offered by two processes at once; e60..e119 by one; e120..e179 by the KV recorder.
    const counted = await Promise.all([run("sqlite", 0), run("sqlite", 0), run("sqlite", 60), run("kv", 120)]);
    expect(counted.reduce((a, b) => a + b, 0)).toBe(180);
    const storage = createSqliteStorage({ directory });
    opened.push(storage);
    expect(await storage.tokenUsage!({ projectId: "p" }).total()).toEqual({ input: 180, output: 180, cacheRead: 0, cacheWrite: 0, total: 360 });
  }, 60_000);
});
