import { afterAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteSessionStore } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const root = mkdtempSync(join(tmpdir(), "sh-session-crash-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fixture = join(process.cwd(), "test", "sessions", "fixtures", "session-append-loop.ts");

/** Runs the append loop until it reported `commits` batches, then SIGKILLs it `delayMs` later. */
function killDuringAppends(path: string, commits: number, delayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundledFixture(fixture), path], { stdio: ["ignore", "pipe", "inherit"] });
    let reported = 0;
    let killing = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      reported += chunk.split("\n").filter(Boolean).length;
      if (reported >= commits && !killing) {
        killing = true;
        setTimeout(() => child.kill("SIGKILL"), delayMs);
      }
    });
    child.on("exit", (_code, signal) => (signal === "SIGKILL" ? resolve(reported) : reject(new Error(`append loop ended with ${String(signal)}`))));
  });
}

describe("SQLite session store under SIGKILL (SES-1 atomic appends)", () => {
  it("SES-4 a process killed mid-append leaves whole batches only, a consistent head, and a writable file", async () => {
    const path = join(root, "s.sqlite");
    for (let round = 0; round < 4; round++) {
      const reported = await killDuringAppends(path, 2 + round, round * 3);
      const store = createSqliteSessionStore({ path, address: { projectId: "p", sessionKey: "agent" } });
      try {
        const events = await store.readAfter(0);
        const head = await store.head();
        const batches = events.filter((e) => e.runId.startsWith("run-"));
        // Every batch is 50 events (plus one marker event per earlier round); a torn batch would leave a remainder.
        expect(batches.length % 50).toBe(0);
        expect(events.length - batches.length).toBe(round);
        expect(head.lastSeq).toBe(events.length);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        const byRun = new Map<string, number>();
        for (const event of batches) byRun.set(event.runId, (byRun.get(event.runId) ?? 0) + 1);
        expect([...byRun.values()].every((count) => count === 50)).toBe(true);
        // Nothing reported as committed is missing (commits are durable once append resolved).
        expect(batches.length).toBeGreaterThanOrEqual(reported * 50);
        const next = await store.append([{ eventId: `after-${round}`, runId: `after-${round}`, type: "plan", payload: { planIndex: 0, text: "ok" } }]);
        expect(next.events[0]!.seq).toBe(events.length + 1);
      } finally {
        await store.close();
      }
    }
  }, 120_000);
});
