import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createPostgresApprovalStore } from "../../src/adapters/driven/postgres/postgres-approval-store.js";
import { createSqliteApprovalStore } from "../../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createGovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import type { ApprovalPolicy } from "../../src/domain/approvals/policy.js";
import type { ApprovalStore } from "../../src/ports/approval-store.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { describePostgres } from "../fixtures/postgres.js";

const WORKER = join(import.meta.dirname, "fixtures", "once-racer.ts");
const NOW = Date.UTC(2026, 11, 2, 12);
const POLICY: ApprovalPolicy = { approverGroups: { sre: [{ subject: "alice" }] }, approvers: "sre", rules: [] };
const REQUESTS = Array.from({ length: 40 }, (_, n) => `approval:race-${n}`);

/** Records the requests and one `once` approval of each, then lets two processes race for them; resolves what each got. */
async function race(store: ApprovalStore, env: Record<string, string>): Promise<string[][]> {
  const permissions = createGovernedToolPermissions({ policy: POLICY, store, clock: { now: () => NOW } });
  for (const requestId of REQUESTS) {
    await permissions.request({ requestId, runId: "run-race", toolId: "deploy", arguments: { env: "prod" }, requestedBy: { tenant: "key:race", subject: "carol" } });
    await permissions.decide({ requestId, outcome: "approved", approver: { surface: "cli", subject: "alice" } });
  }
  const worker = bundledFixture(WORKER);
  // Each racer prints "ready" once its store is open, then its approved ids; both start on one "go".
  const racers = [0, 1].map(() => {
    const child = spawn(process.execPath, [worker], { env: { ...process.env, ...env, RACE_POLICY: JSON.stringify(POLICY), RACE_NOW: String(NOW), RACE_REQUESTS: JSON.stringify(REQUESTS) }, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    let ready!: () => void;
    const readied = new Promise<void>((resolve) => (ready = resolve));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.startsWith("ready\n")) ready();
    });
    const exited = new Promise<string[]>((resolve, reject) => child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.slice("ready\n".length)) as string[]) : reject(new Error(`racer exited ${code}`)))));
    return { child, readied: Promise.race([readied, exited.then(() => undefined)]), exited };
  });
  await Promise.all(racers.map((racer) => racer.readied));
  for (const racer of racers) racer.child.stdin.write("go\n");
  return Promise.all(racers.map((racer) => racer.exited));
}

async function expectEachUsedOnce(store: ApprovalStore, results: string[][]): Promise<void> {
  const approved = results.flat().sort();
  expect(approved).toEqual([...REQUESTS].sort());
  const uses = (await store.audit("key:race")).filter((entry) => entry.kind === "use").map((entry) => entry.requestId).sort();
  expect(uses).toEqual([...REQUESTS].sort());
}

describe("GOV-5 single use across hosts on SQLite", () => {
  it("GOV-5 two processes on one SQLite file racing for 40 once-decisions: each is used exactly once", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-gov-race-"));
    const store = createSqliteApprovalStore({ directory });
    try {
      await expectEachUsedOnce(store, await race(store, { RACE_SQLITE: directory }));
    } finally {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describePostgres("GOV-5 single use across hosts on PostgreSQL", (database) => {
  it("GOV-5 two processes on one PostgreSQL racing for 40 once-decisions: each is used exactly once (UPDATE … WHERE used_at IS NULL RETURNING)", async () => {
    const schema = database.freshSchema();
    const store = await createPostgresApprovalStore({ connectionString: database.url, schema });
    try {
      await expectEachUsedOnce(store, await race(store, { RACE_POSTGRES: database.url, RACE_SCHEMA: schema }));
    } finally {
      await store.close();
    }
  });
});
