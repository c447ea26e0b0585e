// BUD-4 over MCP: `steamharness mcp --http --keys` accepts the keys `steamharness gateway keys add`
// writes (one key store for both surfaces), with real processes — the CLI, two server processes on
// one SQLite key store, and the SDK's Streamable HTTP client.
import { beforeAll, describe, expect, it, jest } from "@jest/globals";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { openGatewayKeyStore } from "../../src/compose/api-keys.js";
import { describePostgres } from "../fixtures/postgres.js";
import { runCli } from "../cli/helpers.js";
import { mcpHttpHost } from "../fixtures/mcp-http-host.js";
import { connectHttp, connectWithKey, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(180_000);

const WORKFLOW = `export default {
  entrypoints: {
    quick: { title: "Quick", description: "Answers its tenant", run: (params, context) => ({ tenantId: context.node?.tenantId ?? null }) },
    slow: { title: "Slow", description: "Holds its worker", run: () => new Promise((r) => setTimeout(() => r({ ok: true }), 1500)) },
  },
};
`;

const host = mcpHttpHost("sh-mcp-keys-", "keys", "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7", WORKFLOW);
let store: string;
beforeAll(() => {
  store = join(host.tmp, "keys");
});

async function addKey(tenant: string, ...limits: string[]): Promise<string> {
  const added = await runCli(["gateway", "keys", "add", "--tenant", tenant, ...limits, "--store", store]);
  expect(added.code).toBe(0);
  return /^(sh_[A-Za-z0-9_-]{43})$/m.exec(added.stdout)![1]!;
}

async function serve(...extra: string[]): Promise<HttpMcpServer> {
  return serveOn(["--store", store], ...extra);
}

async function serveOn(where: string[], ...extra: string[]): Promise<HttpMcpServer> {
  return host.serve(["--keys", ...where, "--data-dir", join(host.tmp, `data-${host.servers.length}`), ...extra]);
}

/** An SDK client with the key (closed after the file); `seen` collects the status and Retry-After of every HTTP answer. */
async function connectWith(server: HttpMcpServer, secret: string, seen: { status: number; retryAfter: string | null }[] = []): Promise<Client> {
  const client = await connectWithKey(server.url, secret, seen);
  return host.track(client);
}

/** The HTTP status (the SDK's `StreamableHTTPError.code`) and message a refused request rejects with. */
async function refusal(promise: Promise<unknown>): Promise<{ status: unknown; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { status: (error as { code?: unknown }).code, message: String((error as Error).message) };
  }
  throw new Error("the request was not refused");
}

const call = async (client: Client, name: string) => (await client.callTool({ name, arguments: {} }, undefined, { timeout: 60_000 })) as CallToolResult;

/**
 * Adds a key through the CLI, calls with it on two `mcp --http --keys` hosts of the store `where`
 * names, revokes it through the CLI and expects the second host to refuse it (401) within the bound.
 */
async function revokeAcrossHosts(where: string[]): Promise<void> {
  const added = await runCli(["gateway", "keys", "add", "--tenant", "acme", ...where]);
  expect(added.code).toBe(0);
  const secret = /^(sh_[A-Za-z0-9_-]{43})$/m.exec(added.stdout)![1]!;
  const [a, b] = [await serveOn(where, "--key-cache-ms", "500"), await serveOn(where, "--key-cache-ms", "500")];
  const client = await connectWith(a!, secret);
  const result = await call(client, "quick");
  expect(result.isError).toBeFalsy();
  expect((result.structuredContent as { output?: { tenantId?: string } }).output?.tenantId).toBe("key:acme"); // TEN-1: the principal's tenant key
  expect((await refusal(connectHttp(a!.url))).status).toBe(401);
  expect((await refusal(connectWith(a!, `sh_${"z".repeat(43)}`))).status).toBe(401);
  const other = await connectWith(b!, secret);
  expect((await call(other, "quick")).isError).toBeFalsy();
  const revoked = await runCli(["gateway", "keys", "revoke", secret.slice(0, 11), ...where]);
  expect(revoked.code).toBe(0);
  const at = Date.now();
  let refusedAfter: number | null = null;
  while (Date.now() - at < 5000) {
    try {
      await call(other, "quick");
    } catch (error) {
      expect((error as { code?: unknown }).code).toBe(401);
      refusedAfter = Date.now() - at;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(refusedAfter).not.toBeNull();
  // The bound is the cache time, plus the time of one call on this loaded machine.
  expect(refusedAfter!).toBeLessThan(500 + 2000);
}

describe("steamharness mcp --http --keys", () => {
  it("BUD-4 a key made by `gateway keys add` calls tools as its tenant; no or wrong key is 401; a revoked key is refused on a second host within the cache bound", async () => {
    await revokeAcrossHosts(["--store", store]);
  });

  it("BUD-4 the request rate refuses tools/call with HTTP 429 and Retry-After; tools/list does not count", async () => {
    const secret = await addKey("rated", "--requests-per-minute", "2");
    const server = host.servers[0] ?? (await serve());
    const seen: { status: number; retryAfter: string | null }[] = [];
    const client = await connectWith(server, secret, seen);
    for (let i = 0; i < 3; i += 1) await client.listTools();
    // Rate windows are fixed minutes (ports/api-keys.ts): calls that straddle a window's end get
    // two more admissions, so the refusal comes at the third call, or at the fifth at the latest.
    let admitted = 0;
    let limited: { status: unknown; message: string } | undefined;
    while (limited === undefined && admitted <= 4) {
      const answer = await call(client, "quick").then((result) => result, (error: unknown) => error as Error);
      if (answer instanceof Error) limited = await refusal(Promise.reject(answer));
      else {
        expect(answer.isError).toBeFalsy();
        admitted += 1;
      }
    }
    expect(admitted).toBeGreaterThanOrEqual(2);
    expect(admitted).toBeLessThanOrEqual(4);
    expect(limited?.status).toBe(429);
    expect(limited?.message).toMatch(/rate_limit_exceeded/);
    const refused = seen.find((answer) => answer.status === 429);
    expect(Number(refused?.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused?.retryAfter)).toBeLessThanOrEqual(60);
  });

  it("BUD-4 the concurrency limit refuses a second call while the first runs, and admits it once that ended", async () => {
    const secret = await addKey("narrow", "--concurrency", "1");
    const server = host.servers[0] ?? (await serve());
    const client = await connectWith(server, secret);
    const first = call(client, "slow");
    await new Promise((resolve) => setTimeout(resolve, 400));
    const busy = await refusal(call(client, "quick"));
    expect(busy.status).toBe(429);
    expect(busy.message).toMatch(/concurrent requests[\s\S]*rate_limit_exceeded/);
    expect((await first).isError).toBeFalsy();
    expect((await call(client, "quick")).isError).toBeFalsy();
  });

  it("BUD-4 an exhausted tenant budget is a 429 with the distinct insufficient_quota error and no Retry-After", async () => {
    const secret = await addKey("spent", "--budget-tokens", "100");
    const keys = await openGatewayKeyStore({ directory: store });
    try {
      await keys.budgets.reserve({ reservationId: "spent-run", limits: [{ scope: "tenant", id: "spent", tokens: 100 }], amount: { tokens: 100, costMicros: 0 }, at: Date.now() });
      await keys.budgets.settle("spent-run", { tokens: 100, costMicros: 0 });
    } finally {
      await keys.close();
    }
    const server = host.servers[0] ?? (await serve());
    const seen: { status: number; retryAfter: string | null }[] = [];
    const client = await connectWith(server, secret, seen);
    const spent = await refusal(call(client, "quick"));
    expect(spent.status).toBe(429);
    expect(spent.message).toMatch(/"code":"insufficient_quota"/);
    expect(seen.find((answer) => answer.status === 429)?.retryAfter).toBeNull();
  });

  it("BUD-4 --store or --key-cache-ms without --keys, and --keys with --auth-token-file, exit 2 before serving", async () => {
    const lone = await runCli(["mcp", host.project, "--http", "--port", "0", "--store", store]);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain("--store only applies with --keys");
    const cache = await runCli(["mcp", host.project, "--http", "--port", "0", "--key-cache-ms", "10"]);
    expect(cache.code).toBe(2);
    expect(cache.stderr).toContain("--key-cache-ms only applies with --keys");
    const tokenFile = join(host.tmp, "token");
    await writeFile(tokenFile, "t".repeat(32));
    const both = await runCli(["mcp", host.project, "--http", "--port", "0", "--keys", "--store", store, "--auth-token-file", tokenFile]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--keys and --auth-token-file/--oauth-issuer are alternatives");
  });

  it("BUD-4 --keys counts as authorization for a non-loopback bind", async () => {
    const server = await serve("--host", "0.0.0.0");
    expect(server.url.hostname).toBe("0.0.0.0");
    const secret = await addKey("wide");
    const loopback = { ...server, url: new URL(server.url.href.replace("0.0.0.0", "127.0.0.1")) };
    expect((await refusal(connectHttp(loopback.url))).status).toBe(401);
    const client = await connectWith(loopback, secret);
    expect((await call(client, "quick")).isError).toBeFalsy();
  });
});

describePostgres("BUD-4 steamharness mcp --http --keys on one PostgreSQL", (database) => {
  it("BUD-4 a key revoked through the CLI is refused by a second mcp --http host on one PostgreSQL within the key cache bound", async () => {
    await revokeAcrossHosts(["--postgres", database.url, "--postgres-schema", database.freshSchema()]);
  });
});
