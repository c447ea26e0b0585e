import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { collectAll } from "../../src/testing/contract-support.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const WRITER = join(process.cwd(), "test", "adapters", "sqlite-multiprocess-writer.ts");
const ENTRIES = 1000;
const INCREMENTS = 250;

interface Writer {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

function startWriter(directory: string, name: string): Writer {
  const child = spawn(process.execPath, [bundledFixture(WRITER), directory, name, String(ENTRIES), String(INCREMENTS)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const output: string[] = [];
  let pending = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    output.push(...lines.filter(Boolean));
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output, exited };
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("PORT-2 SQLite store shared by processes", () => {
  it("two processes writing 1000 entries each, incrementing one counter and sharing file contents lose nothing and never surface SQLITE_BUSY", async () => {
    const directory = mkdtempSync(join(tmpdir(), "steamharness-mp-"));
    try {
      // Both open the brand-new directory at once, so they also race on creating and migrating it.
      const writers = [startWriter(directory, "a"), startWriter(directory, "b")];
      await until(() => writers.every((w) => w.output.includes("ready") || w.child.exitCode !== null), "both ready");
      for (const writer of writers) writer.child.stdin!.end("go\n");
      const codes = await Promise.all(writers.map((w) => w.exited));
      const reports = writers.map((w) => w.output.filter((line) => line !== "ready" && !line.startsWith("files ")));
      expect(reports).toEqual([[`done ${INCREMENTS}`], [`done ${INCREMENTS}`]]);
      const kept: Record<string, string> = Object.assign(
        {},
        ...writers.map((w) => JSON.parse(w.output.find((line) => line.startsWith("files "))!.slice(6))),
      );
      expect(codes).toEqual([0, 0]);

      const storage = createSqliteStorage({ directory });
      try {
        const ns = { projectId: "shared" };
        for (const name of ["a", "b"]) {
          const entries = await collectAll((cursor) => storage.kv.list(ns, { prefix: `${name}/`, limit: 500, cursor }));
          expect(entries).toHaveLength(ENTRIES);
          expect(entries.every((entry, i) => (entry.value as { i: number }).i === i)).toBe(true);
        }
        expect((await storage.kv.get(ns, "counter"))?.value).toBe(2 * INCREMENTS);
        const docs = await collectAll((cursor) => storage.knowledge.list("shared", { limit: 500, cursor }));
        expect(docs).toHaveLength((2 * ENTRIES) / 20);
        const hits = await collectAll((cursor) => storage.knowledge.search("shared", "shared corpus", { limit: 500, cursor }));
        expect(hits).toHaveLength((2 * ENTRIES) / 20);
        expect(Object.keys(kept)).toHaveLength(30);
        for (const [fileId, text] of Object.entries(kept)) {
          expect(new TextDecoder().decode((await storage.files.read("shared", fileId))!)).toBe(text);
        }
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
