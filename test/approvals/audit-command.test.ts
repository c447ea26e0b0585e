import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createSqliteApprovalStore } from "../../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createGovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import { registerAuditCommand } from "../../src/adapters/driving/cli/audit-command.js";
import { createProgram } from "../../src/adapters/driving/cli/program.js";
import { createSurfaceServices } from "../../src/compose/surface-services.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store directory with two tenants' chains: acme request, decision, use; beta request, expiry. */
async function seeded(): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), "sh-audit-"));
  dirs.push(directory);
  const store = createSqliteApprovalStore({ directory });
  const clock = createFixedClock(Date.UTC(2026, 11, 2, 12));
  const permissions = createGovernedToolPermissions({ policy: { expiresAfterMs: 1000, rules: [] }, store, clock });
  const call = (tenant: string, requestId: string) => ({ requestId, runId: "run-1", toolId: "deploy", arguments: { env: "prod" }, requestedBy: { tenant, subject: "carol" } });
  await permissions.request(call("key:acme", "a1"));
  await permissions.decide({ requestId: "a1", outcome: "approved", approver: { surface: "cli", tenant: "key:acme", subject: "alice" } });
  await permissions.request(call("key:acme", "a1"));
  await permissions.request(call("key:beta", "b1"));
  clock.advance(1000);
  await permissions.request(call("key:beta", "b1"));
  await store.close();
  return directory;
}

async function audit(...args: string[]): Promise<{ out: string; error?: { code?: string; message: string } }> {
  let out = "";
  const program = createProgram([(p) => registerAuditCommand(p, createSurfaceServices({}), (text) => void (out += text))], "0.0.0");
  try {
    await program.parseAsync(["node", "steamharness", "audit", ...args]);
    return { out };
  } catch (error) {
    return { out, error: error as { code?: string; message: string } };
  }
}

const tamper = (directory: string, sql: string) => {
  const db = new Database(join(directory, "store.sqlite"));
  db.exec(sql);
  db.close();
};

describe("GOV-7 steamharness audit export and verify", () => {
  it("GOV-7 export writes JSONL per tenant in chain order, and verify accepts the store and the export", async () => {
    const directory = await seeded();
    const exported = await audit("export", "--store", directory);
    const lines = exported.out.trim().split("\n").map((line) => JSON.parse(line) as { tenant: string; seq: number; kind: string });
    expect(lines.map((entry) => `${entry.tenant} ${entry.seq} ${entry.kind}`)).toEqual(["key:acme 1 request", "key:acme 2 decision", "key:acme 3 use", "key:beta 1 request", "key:beta 2 expiry"]);
    expect((await audit("export", "--store", directory, "--tenant", "key:beta")).out.trim().split("\n")).toHaveLength(2);
    expect(await audit("verify", "--store", directory)).toEqual({ out: "audit log verified: 5 entries in 2 tenant chain(s)\n" });
    const file = join(directory, "audit.jsonl");
    writeFileSync(file, exported.out);
    expect((await audit("verify", "--file", file)).out).toContain("5 entries");
    // A swapped pair of lines in the export is reported as reordered.
    const swapped = exported.out.trim().split("\n");
    [swapped[1], swapped[2]] = [swapped[2]!, swapped[1]!];
    writeFileSync(file, `${swapped.join("\n")}\n`);
    expect((await audit("verify", "--file", file)).error).toMatchObject({ code: "conflict", message: expect.stringContaining("reordered"), data: { tenant: "key:acme", problem: "reordered" } });
  });

  it("GOV-7 verify detects a modified row", async () => {
    const directory = await seeded();
    tamper(directory, `UPDATE approval_audit SET data = replace(data, '"approved"', '"denied"') WHERE tenant = 'key:acme' AND seq = 2`);
    expect((await audit("verify", "--store", directory)).error).toMatchObject({ code: "conflict", data: { tenant: "key:acme", seq: 2, problem: "changed" } });
  });

  it("GOV-7 verify detects a deleted row", async () => {
    const directory = await seeded();
    tamper(directory, `DELETE FROM approval_audit WHERE tenant = 'key:acme' AND seq = 2`);
    expect((await audit("verify", "--store", directory)).error).toMatchObject({ code: "conflict", data: { tenant: "key:acme", seq: 3, problem: "removed" } });
  });

  it("GOV-7 verify detects two swapped rows", async () => {
    const directory = await seeded();
    // Rows 1 and 2 of acme exchange their places in the chain (their seq numbers).
    tamper(directory, `UPDATE approval_audit SET seq = -seq WHERE tenant = 'key:acme' AND seq IN (1, 2); UPDATE approval_audit SET seq = CASE seq WHEN -1 THEN 2 ELSE 1 END WHERE tenant = 'key:acme' AND seq < 0`);
    const result = await audit("verify", "--store", directory);
    expect(result.error).toMatchObject({ code: "conflict", data: { tenant: "key:acme", seq: 1 } });
    expect(result.error!.message).toMatch(/^\[steamharness\] \[audit\] tenant key:acme, entry 1:/);
  });

  it("GOV-7 verify without a store or file is a usage error", async () => {
    expect((await audit("verify")).error).toMatchObject({ code: "input_validation", field: "--store" });
  });
});
