import { afterAll, describe, expect, it } from "@jest/globals";
import type { ChildProcess } from "node:child_process";
import { cleanup, runCli, tempDir } from "../cli/helpers.js";
import { chatAssistantProject, startGatewayProcess } from "../fixtures/gateway-process.js";
import { describePostgres } from "../fixtures/postgres.js";

const assistant = chatAssistantProject();
afterAll(() => assistant.remove());
const CACHE_MS = 1000;

/** A `steamharness gateway` process with API keys from `store` (flags), and its URL. */
async function startGateway(store: string[], dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const { child, url, stderr } = await startGatewayProcess(assistant.dir, ["--key-cache-ms", String(CACHE_MS), ...store], dataDir);
  expect(stderr()).toMatch(/API keys: /);
  expect(stderr()).not.toMatch(/token \(generated/);
  return { child, url };
}

const status = async (url: string, secret: string): Promise<number> => (await fetch(`${url}/models`, { headers: { authorization: `Bearer ${secret}` } })).status;

/** Adds a key through the CLI, serves it from two gateway processes, revokes it through the CLI and times the refusal on both. */
async function revokeAcrossHosts(store: string[]): Promise<void> {
  const dataDirs = [await tempDir("sh-gw-keys-a-"), await tempDir("sh-gw-keys-b-")];
  const hosts: ChildProcess[] = [];
  try {
    const added = await runCli(["gateway", "keys", "add", "--tenant", "acme", "--requests-per-minute", "1000", ...store]);
    expect(added.code).toBe(0);
    const secret = /^(sh_[A-Za-z0-9_-]{43})$/m.exec(added.stdout)?.[1];
    expect(secret).toBeDefined();
    const id = secret!.slice(0, 11);
    const listed = await runCli(["gateway", "keys", "list", ...store]);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain(secret!);
    const [a, b] = await Promise.all(dataDirs.map((dir) => startGateway(store, dir)));
    hosts.push(a!.child, b!.child);
    expect(await status(a!.url, secret!)).toBe(200);
    expect(await status(b!.url, secret!)).toBe(200);
    expect(await status(a!.url, `sh_${"z".repeat(43)}`)).toBe(401);
    const revoked = await runCli(["gateway", "keys", "revoke", id, ...store]);
    expect(revoked.code).toBe(0);
    const at = Date.now();
    // Each host refuses the key once its cached verification is older than the bound.
    const refusedAfter = await Promise.all(
      [a!, b!].map(async (host) => {
        while ((await status(host.url, secret!)) === 200) {
          if (Date.now() - at > CACHE_MS + 10_000) throw new Error("the revoked key is still served");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return Date.now() - at;
      }),
    );
    // The bound plus scheduling slack on a loaded machine; a host that never re-verified would serve it for ever.
    for (const elapsed of refusedAfter) expect(elapsed).toBeLessThan(CACHE_MS + 5_000);
    expect(await status(a!.url, secret!)).toBe(401);
    expect((await runCli(["gateway", "keys", "list", ...store])).stdout).toMatch(new RegExp(`${id}\\tacme\\t\\S+\\t20\\d\\d-`));
    const again = await runCli(["gateway", "keys", "revoke", id, ...store]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no valid key has the id/);
  } finally {
    for (const child of hosts) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await cleanup(...dataDirs);
  }
}

describe("BUD-4 steamharness gateway keys (CLI) on one SQLite store", () => {
  it("BUD-4 a key revoked through the CLI is refused by two gateway processes on one SQLite store within the key cache bound", async () => {
    const store = await tempDir("sh-gw-store-");
    try {
      await revokeAcrossHosts(["--store", store]);
    } finally {
      await cleanup(store);
    }
  }, 120_000);

  it("BUD-4 keys add refuses bad limits and conflicting stores with exit code 2, writing nothing", async () => {
    const store = await tempDir("sh-gw-store-");
    try {
      const bad = await runCli(["gateway", "keys", "add", "--tenant", "acme", "--concurrency", "0", "--store", store]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--concurrency must be an integer ≥ 1/);
      const both = await runCli(["gateway", "keys", "add", "--tenant", "acme", "--store", store, "--postgres", "postgres://x@localhost/db"]);
      expect(both.code).toBe(2);
      const period = await runCli(["gateway", "keys", "add", "--tenant", "acme", "--period", "week", "--store", store]);
      expect(period.code).toBe(2);
      expect((await runCli(["gateway", "keys", "list", "--store", store])).stdout.trim()).toBe("id\ttenant\tcreated\trevoked");
    } finally {
      await cleanup(store);
    }
  }, 60_000);
});

describePostgres("BUD-4 steamharness gateway keys (CLI) on one PostgreSQL", (database) => {
  it("BUD-4 a key revoked through the CLI is refused by two gateway processes on one PostgreSQL within the key cache bound", async () => {
    await revokeAcrossHosts(["--postgres", database.url, "--postgres-schema", database.freshSchema()]);
  }, 120_000);
});
