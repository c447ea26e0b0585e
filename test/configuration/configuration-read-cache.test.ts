import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "@jest/globals";
import { createSqliteProjectConfigurationStore, openConfigurationDatabase } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { sqlConfigurationStoreOn } from "../../src/adapters/driven/kernel/configuration-rows.js";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

// CFG-2: every workflow run reads its project's configuration. The SQLite store answers a read
// from the state it loaded last while SQLite's change signal (`PRAGMA data_version`) keeps its
// value and the store has not written since — so a change made by another process is seen by
// the very next read, and an unchanged configuration costs one tiny statement per run.

const dirs: string[] = [];
const tempPath = () => {
  const dir = mkdtempSync(join(tmpdir(), "sh-cfg-cache-"));
  dirs.push(dir);
  return join(dir, "configurations.sqlite");
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("CFG-2 reads are answered from memory while the change signal keeps its value; a new value, or the store's own write, loads again", async () => {
  const path = tempPath();
  let signal = 1;
  const cached = sqlConfigurationStoreOn(openConfigurationDatabase({ path, clock: createFixedClock(1000) }), "", () => signal);
  const other = createSqliteProjectConfigurationStore({ path });
  try {
    await other.create("p", { configurationId: "main", name: "Main", values: {} });
    const ids = async () => (await cached.read("p")).configurations.map((c) => c.configurationId);
    expect(await ids()).toEqual(["main"]);
    await other.create("p", { configurationId: "second", name: "Second", values: {} });
    // The (stand-in) signal did not move: the state loaded before is the answer.
    expect(await ids()).toEqual(["main"]);
    signal = 2;
    expect(await ids()).toEqual(["main", "second"]);
    // Its own write leaves the signal as it was and still shows at the next read.
    await cached.create("p", { configurationId: "third", name: "Third", values: {} });
    expect(await ids()).toEqual(["main", "second", "third"]);
  } finally {
    await other.close?.();
    await cached.close?.();
  }
});

it("CFG-2 a configuration another process writes is seen by the very next read of a store that read it before", async () => {
  const path = tempPath();
  const store = createSqliteProjectConfigurationStore({ path });
  try {
    await store.setFields("p", [{ key: "title", type: "string" }], { expectedRevision: 0 });
    await store.create("p", { configurationId: "main", name: "Main", values: { title: "before" } });
    for (let i = 0; i < 3; i++) expect((await store.get("p", "main"))?.values).toEqual({ title: "before" });
    // Another process (its own connection) updates the configuration the store has read.
    const writer = spawn(process.execPath, [bundledFixture("test/configuration/fixtures/concurrent-writer.ts"), path, "p", "1", "after"], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    writer.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"ready"')) writer.stdin.end("go\n");
    });
    await new Promise((resolve) => writer.once("exit", resolve));
    expect(out).toContain('"ok":true');
    expect((await store.get("p", "main"))?.values).toEqual({ title: "after" });
    expect((await store.read("p")).configurations[0]).toMatchObject({ revision: 2, values: { title: "after" } });
  } finally {
    await store.close?.();
  }
});
