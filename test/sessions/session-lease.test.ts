import { afterAll, describe, expect, it } from "@jest/globals";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { createMemorySessionLeaseProvider } from "../../src/adapters/driven/memory/memory-session-lease.js";
import { createSqliteSessionLeaseProvider } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-lease.js";
import { runSessionLeaseContract } from "../../src/testing/session-lease.contract.js";

const root = mkdtempSync(join(tmpdir(), "sh-session-lease-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("memory session lease", () => {
  // "shared-storage" is skipped: a memory provider's leases live in that provider object only.
  runSessionLeaseContract({ describe, it, expect }, () => ({
    store: createMemorySessionLeaseProvider(),
    inspect: { pathTarget: (name) => ({ databasePath: `/memory/${name}.sqlite` }) },
  }), { skip: ["shared-storage"] });
});

describe("sqlite session lease", () => {
  runSessionLeaseContract({ describe, it, expect }, () => {
    const agentStoreDir = mkdtempSync(join(root, "store-"));
    return {
      store: createSqliteSessionLeaseProvider({ agentStoreDir }),
      inspect: {
        peer: () => createSqliteSessionLeaseProvider({ agentStoreDir }),
        pathTarget: (name) => ({ databasePath: join(agentStoreDir, "explicit", `${name}.sqlite`) }),
      },
    };
  });

  it("SES-2 two connections in one process: the second is refused until the first releases", async () => {
    const path = join(root, "two-connections", "s.sqlite");
    const a = createSqliteSessionLeaseProvider();
    const b = createSqliteSessionLeaseProvider();
    const lease = await a.acquire({ databasePath: path }, { ownerId: "a" });
    expect(lease?.key).toBe(`${path}.lock`);
    for (let i = 0; i < 50; i++) expect(await b.acquire({ databasePath: path }, { ownerId: "b" })).toBeNull();
    expect(lease?.isHeld()).toBe(true);
    await lease?.release();
    const taken = await b.acquire({ databasePath: path }, { ownerId: "b" });
    expect(taken?.isHeld()).toBe(true);
    await taken?.release();
  });

  it("SES-2 a held lease writes no journal file next to its lock, and excludes a lock connection with an on-disk journal", async () => {
    const path = join(root, "journal", "s.sqlite");
    const lease = await createSqliteSessionLeaseProvider().acquire({ databasePath: path }, { ownerId: "a" });
    expect(lease?.isHeld()).toBe(true);
    // The lock's rollback journal lives in memory: no `-journal` file is created per lease.
    expect(readdirSync(dirname(path))).toEqual(["s.sqlite.lock"]);
    // A connection in SQLite's default journal mode (as an older steamharness opens it) is refused too.
    const other = new Database(`${path}.lock`, { timeout: 0 });
    expect(() => other.exec("BEGIN EXCLUSIVE")).toThrow(expect.objectContaining({ code: "SQLITE_BUSY" }));
    await lease?.release();
    other.exec("BEGIN EXCLUSIVE");
    expect(await createSqliteSessionLeaseProvider().acquire({ databasePath: path }, { ownerId: "b" })).toBeNull();
    other.exec("ROLLBACK");
    other.close();
    expect(existsSync(`${path}.lock-journal`)).toBe(false);
  });

  it("SES-1 an address lease without agentStoreDir is refused with input_validation", async () => {
    const provider = createSqliteSessionLeaseProvider();
    const error = await provider.acquire({ projectId: "p", sessionKey: "agent" }, { ownerId: "a" }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("input_validation");
  });
});
