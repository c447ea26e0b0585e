// BUD-4 inside MCP runs: with `steamharness mcp --http --keys`, the budget of the API key's tenant
// (set by `steamharness gateway keys add --budget-tokens`) is reserved before every model call of
// the run's agents in the key store's ledger — the one admission reads — so a runaway entrypoint
// stops at the tenant's cap during its run, on one SQLite host and across two hosts on one
// PostgreSQL; and the tokens a run used count in the tenant's token-rate window, so the next call
// over `--tokens-per-minute` is refused. Real processes: the CLI, `mcp --http` servers (their
// workers), the SDK's Streamable HTTP client; the project's agent calls the offline model.
import { describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { openGatewayKeyStore } from "../../src/compose/api-keys.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { describePostgres } from "../fixtures/postgres.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { connectWithKey, type HttpMcpServer } from "./helpers.js";
import { mcpHttpHost } from "../fixtures/mcp-http-host.js";
import { addTenantKey } from "../fixtures/tenant-credentials.js";

jest.setTimeout(240_000);

/** Model calls a looping call makes at most: far past any cap below (50 tokens each). */
const LOOPS = 200;
/** The tenant cap of the runaway tests: dozens of calls' worth (one call reserves about 1100 tokens, spends 50). */
const CAP = 5000;

// The project's agent declares no budget of its own (only the output limit it reserves per call):
// the cap is the host's, from the key. The project imports the bundled workflow kit (plain
// JavaScript), so the built CLI serves it when dist/ is fresh.
const WORKFLOW = `import { createAgentNode, runStreamNode, createOfflineModel } from ${JSON.stringify(bundledFixture("test/fixtures/workflow-kit.ts"))};
const usage = { input: 20, output: 30, cacheRead: 0, cacheWrite: 0, total: 50 };
export default {
  entrypoints: {
    runaway: {
      title: "Runaway",
      description: "Calls its agent again and again",
      params: [{ name: "loops", type: "number", required: true }],
      async run(params, context) {
        const node = createAgentNode({ models: createOfflineModel({ steps: () => ({ text: "ok", usage }) }), compaction: false, budget: { maxOutputTokens: 100 } });
        let calls = 0;
        // A new agent run each time (the same run id would replay the committed answer, not call the model).
        for (; calls < params.loops; calls += 1) await runStreamNode(node, { prompt: "go", runId: context.runId + "-" + calls }, context.node);
        return { calls };
      },
    },
  },
};
`;

const host = mcpHttpHost("sh-mcp-tenant-ledger-", "tenant-ledger", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", WORKFLOW);

const serve = (where: string[]): Promise<HttpMcpServer> => host.serve(["--keys", ...where, "--data-dir", join(host.tmp, `data-${host.servers.length}`), "--workers", "2"]);

/** An SDK client with the key (closed after the file); `seen` collects the status and Retry-After of every HTTP answer. */
async function connectWith(server: HttpMcpServer, secret: string, seen: { status: number; retryAfter: string | null }[] = []): Promise<Client> {
  const client = await connectWithKey(server.url, secret, seen);
  return host.track(client);
}

/** How one call ended: the run's output or error code, or the HTTP status and message of a refusal. */
type Outcome = { kind: "result"; code: string | null; calls: number | null } | { kind: "refused"; status: unknown; message: string };

async function runaway(client: Client, loops = LOOPS): Promise<Outcome> {
  try {
    const result = (await client.callTool({ name: "runaway", arguments: { loops } }, undefined, { timeout: 180_000 })) as CallToolResult;
    const content = result.structuredContent as { output?: { calls?: number }; error?: { code?: string } };
    return { kind: "result", code: result.isError ? (content.error?.code ?? "unknown") : null, calls: content.output?.calls ?? null };
  } catch (error) {
    return { kind: "refused", status: (error as { code?: unknown }).code, message: String((error as Error).message) };
  }
}

/** The tenant budget as the key store's ledger holds it: the SQLite key store directory, or a PostgreSQL schema. */
async function settled(location: { directory: string } | { postgres: string; schema: string }, tenant: string) {
  const store = "directory" in location ? await openGatewayKeyStore(location) : await createPostgresStorage({ connectionString: location.postgres, schema: location.schema });
  try {
    return await store.budgets!.read({ scope: "tenant", id: tenant }, Date.now());
  } finally {
    await store.close();
  }
}

/** The current UTC minute (the token window is a fixed minute). */
const minuteNow = () => Math.floor(Date.now() / 60_000);

describe("BUD-4 mcp --http --keys: the tenant budget inside the runs (SQLite)", () => {
  it("BUD-4 a runaway entrypoint stops at its key tenant's budget during the run (budget_exceeded); settled spend ≤ the cap; later calls stop too until one adds nothing", async () => {
    const where = ["--store", join(host.tmp, "keys")];
    const secret = await addTenantKey(where, "runaway", "--budget-tokens", String(CAP));
    const server = await serve(where);
    const client = await connectWith(server, secret);
    const first = await runaway(client);
    expect(first).toEqual({ kind: "result", code: "budget_exceeded", calls: null });
    const after = await settled({ directory: join(host.tmp, "keys") }, "runaway");
    expect(after.spent.tokens).toBeLessThanOrEqual(CAP);
    // It ran for a while (dozens of 50-token calls) until the next worst case no longer fitted, and holds nothing.
    expect(after.spent.tokens).toBeGreaterThanOrEqual(1000);
    expect(after.reserved.tokens).toBe(0);
    // A run's agents share the run's conversation, so each call's input estimate grows and a run
    // stops when its own worst case no longer fits; a new run starts small and may still spend what
    // fits. Runs keep being stopped, spend never passes the cap, and once what is left is below a
    // fresh call's worst case a call spends nothing.
    let spent = after.spent.tokens;
    for (let attempt = 0; ; attempt++) {
      expect(attempt).toBeLessThan(12);
      const next = await runaway(client);
      if (next.kind === "refused") expect(next.message).toMatch(/insufficient_quota/);
      else expect(next.code).toBe("budget_exceeded");
      const now = await settled({ directory: join(host.tmp, "keys") }, "runaway");
      expect(now.spent.tokens).toBeLessThanOrEqual(CAP);
      expect(now.reserved.tokens).toBe(0);
      if (now.spent.tokens === spent) break;
      spent = now.spent.tokens;
    }
  });

  it("BUD-4 a run's model usage counts in its tenant's token rate: the next tools/call over --tokens-per-minute is refused like the request rate (429, rate_limit_exceeded, Retry-After)", async () => {
    const where = ["--store", join(host.tmp, "keys-rate")];
    // The calls must fall in one minute window. When the minute turns during the first tenant's
    // calls (seen on the clock), the second tenant, with a window of its own, does them again
    // from the start of the new minute (instead of waiting for one before starting).
    const secrets = [await addTenantKey(where, "wordy", "--tokens-per-minute", "120"), await addTenantKey(where, "wordy-again", "--tokens-per-minute", "120")];
    const server = await serve(where);
    let attempt: { seen: { status: number; retryAfter: string | null }[]; spent: Outcome; limited: Outcome } | undefined;
    for (const [index, secret] of secrets.entries()) {
      const seen: { status: number; retryAfter: string | null }[] = [];
      const client = await connectWith(server, secret, seen);
      const minute = minuteNow();
      // Three model calls of 50 tokens: past the 120 of the minute.
      const spent = await runaway(client, 3);
      const limited = await runaway(client, 1);
      attempt = { seen, spent, limited };
      if (minuteNow() === minute || index === secrets.length - 1) break;
    }
    const { seen, spent, limited } = attempt!;
    expect(spent).toEqual({ kind: "result", code: null, calls: 3 });
    expect(limited.kind).toBe("refused");
    if (limited.kind !== "refused") return;
    expect(limited.status).toBe(429);
    expect(limited.message).toMatch(/tokens per minute[\s\S]*"type":"tokens"[\s\S]*"code":"rate_limit_exceeded"/);
    const refused = seen.find((answer) => answer.status === 429);
    expect(Number(refused?.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused?.retryAfter)).toBeLessThanOrEqual(60);
  });
});

describePostgres("BUD-4 mcp --http --keys: the tenant budget inside the runs, two hosts on one PostgreSQL", (database) => {
  it("BUD-4 runaway entrypoints on two mcp --http hosts of one PostgreSQL stop at the shared tenant budget: total settled spend ≤ the cap", async () => {
    const schema = database.freshSchema();
    const where = ["--postgres", database.url, "--postgres-schema", schema];
    const secret = await addTenantKey(where, "shared", "--budget-tokens", String(CAP));
    const [a, b] = [await serve(where), await serve(where)];
    const callers = [await connectWith(a!, secret), await connectWith(a!, secret), await connectWith(b!, secret), await connectWith(b!, secret)];
    const outcomes = await Promise.all(callers.map((client) => runaway(client)));
    for (const outcome of outcomes) {
      if (outcome.kind === "refused") expect(outcome.message).toMatch(/insufficient_quota/);
      else expect(outcome.code).toBe("budget_exceeded");
    }
    // The runs on both hosts charged the one ledger.
    expect(outcomes.filter((outcome) => outcome.kind === "result").length).toBeGreaterThanOrEqual(2);
    const after = await settled({ postgres: database.url, schema }, "shared");
    expect(after.spent.tokens).toBeLessThanOrEqual(CAP);
    expect(after.spent.tokens).toBeGreaterThanOrEqual(1000);
    expect(after.reserved.tokens).toBe(0);
  });
});
