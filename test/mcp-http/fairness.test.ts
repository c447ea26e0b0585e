// BUD-5: fairness between tenants of `steamharness mcp --http`, with real processes — the server
// under test, a real OAuth authorization server (oidc-provider) issuing tokens to two clients,
// and the SDK's Streamable HTTP clients. The tenant is the token's subject. A noisy tenant keeps
// many slow calls queued; the quiet tenant's queue wait (from sending `tools/call` to its run
// starting in a worker, both stamped with this machine's clock) is compared with its wait
// without the noisy tenant, in the same test: the margin is half of one noisy call, where a
// first-come-first-served queue makes the quiet tenant wait for several noisy calls.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { createServer as createHttpServer, type ServerResponse } from "node:http";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from "../fixtures/oidc-authorization-server.js";
import { cleanup, runCli, tempDir, writeProject } from "../cli/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { freePort } from "../fixtures/tenant-credentials.js";

jest.setTimeout(240_000);

const NOISY: TestClient = { clientId: "noisy", clientSecret: "noisy-secret-0123456789", scope: "mcp:read mcp:run" };
const QUIET: TestClient = { clientId: "quiet", clientSecret: "quiet-secret-0123456789", scope: "mcp:read mcp:run" };
/** How long one noisy call holds its worker. */
const NOISY_CALL_MS = 2000;
/** Concurrent call loops of the noisy tenant: far more than the pool has workers. */
const NOISY_LOOPS = 6;
/** Sequential calls of the quiet tenant per phase. */
const QUIET_CALLS = 10;
/**
 * When a test that holds calls at a gate never sees what opens it (a regression), the gate opens
 * after this long, so the test fails on its check instead of its timeout.
 */
const GATE_FALLBACK_MS = 10_000;

// A run's start in milliseconds with a fraction (performance's clock, not Date.now()): a quick run
// and the run after it often start within the same millisecond, and the turn-taking test orders
// runs by their starts.
const WORKFLOW = `const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
export default {
  entrypoints: {
    quick: { title: "Quick", description: "Says when it started", run: () => ({ startedAt: now() }) },
    slow: {
      title: "Slow",
      description: "Says when it started, then holds its worker for ms milliseconds",
      params: [{ name: "ms", type: "number", required: true }],
      async run(params) {
        const startedAt = now();
        await sleep(params.ms);
        return { startedAt };
      },
    },
    held: {
      title: "Held",
      description: "Says when it started, then holds its worker until the gate URL answers",
      params: [{ name: "gate", type: "string", required: true }],
      async run(params) {
        const startedAt = now();
        await (await fetch(params.gate)).text();
        return { startedAt };
      },
    },
  },
};
`;

// An agent node with a tenant budget that names no tenant: the run's context carries the caller's.
// The project imports the agent node from the bundled workflow kit, so its server runs as the
// other servers of this file do (the built CLI when dist/ is fresh), not the sources through tsx.
const budgetWorkflow = () => `import { createAgentNode, runStreamNode, createOfflineModel } from ${JSON.stringify(bundledFixture("test/fixtures/workflow-kit.ts"))};
const usage = { input: 20, output: 30, cacheRead: 0, cacheWrite: 0, total: 50 };
export default {
  entrypoints: {
    spend: {
      title: "Spend",
      description: "One model call charged to the caller's tenant budget",
      async run(params, context) {
        const node = createAgentNode({ models: createOfflineModel({ steps: () => ({ text: "ok", usage }) }), compaction: false, budget: { limits: [{ scope: "tenant", tokens: 100000 }], maxOutputTokens: 100 } });
        await runStreamNode(node, { prompt: "go" }, context.node);
        const tenantId = context.node.tenantId ?? null;
        const state = tenantId === null ? null : await context.storage.budgets.read({ scope: "tenant", id: tenantId }, Date.now());
        return { tenantId, spent: state ? state.spent.tokens : null };
      },
    },
  },
};
`;

let tmp: string;
let as: TestAuthorizationServer;
let project: string;
let budgetProject: string;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-fair-");
  as = await startAuthorizationServer([NOISY, QUIET]);
  project = await writeProject(join(tmp, "project"), {
    "package.json": JSON.stringify({ name: "fair", version: "1.0.0", type: "module", id: "5b0c2f4e-8a1d-4c3b-9e7f-6a5d4c3b2a10", projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": WORKFLOW,
  });
  budgetProject = await writeProject(join(tmp, "budget-project"), {
    "package.json": JSON.stringify({ name: "fair-budget", version: "1.0.0", type: "module", id: "7c1d3e5f-9b2a-4d6c-8e0f-1a2b3c4d5e6f", projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": budgetWorkflow(),
  });
}, 120_000);
afterAll(async () => {
  await as?.close();
  await cleanup(tmp);
});

/**
 * A gate on 127.0.0.1 for the `held` entrypoint: its GETs wait until `open()`, then every GET
 * (waiting or later) is answered at once. Lets a test hold calls in their workers until the
 * moment it has seen what it waits for, instead of holding them for a fixed time.
 */
async function startGate(): Promise<{ url: string; open: () => void; close: () => Promise<void> }> {
  const waiting: ServerResponse[] = [];
  let opened = false;
  const server = createHttpServer((_request, response) => (opened ? response.end("open") : waiting.push(response)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const open = () => {
    opened = true;
    for (const response of waiting.splice(0)) response.end("open");
  };
  return {
    url: `http://127.0.0.1:${port}/gate`,
    open,
    close: () => {
      open();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves after `ms`, without keeping the test process alive. */
const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The nearest-rank percentile of `values`. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function connectAs(server: HttpMcpServer, client: TestClient): Promise<Client> {
  const authProvider = new ClientCredentialsProvider({ clientId: client.clientId, clientSecret: client.clientSecret, scope: client.scope, expectedIssuer: as.issuer });
  return connectHttp(server.url, { transport: { authProvider } });
}

/**
 * Calls `name` and answers how long the call waited before its run started; `onQueued` runs
 * when the server reports (progress) that the call waits for a worker.
 */
async function queueWait(client: Client, name: string, args: Record<string, unknown>, options: { signal?: AbortSignal; onQueued?: () => void } = {}): Promise<number> {
  const sent = Date.now();
  const onprogress = (progress: { message?: string }) => {
    if (progress.message?.startsWith("waiting for a free worker")) options.onQueued?.();
  };
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000, onprogress, ...(options.signal ? { signal: options.signal } : {}) })) as CallToolResult;
  const output = (result.structuredContent as { output?: { startedAt?: number } } | undefined)?.output;
  if (result.isError || typeof output?.startedAt !== "number") throw new Error(`the call failed: ${JSON.stringify(result)}`);
  return output.startedAt - sent;
}

/** Calls `name` and resolves when its run started (the worker's clock stamp). */
async function startedAt(client: Client, name: string, args: Record<string, unknown>, onQueued?: () => void): Promise<number> {
  const sent = Date.now();
  return sent + (await queueWait(client, name, args, onQueued ? { onQueued } : {}));
}

async function quietWaits(client: Client): Promise<number[]> {
  const waits: number[] = [];
  for (let i = 0; i < QUIET_CALLS; i += 1) waits.push(await queueWait(client, "quick", {}));
  return waits;
}

/**
 * The noisy tenant: `NOISY_LOOPS` loops each calling `slow` back to back until stopped, so its
 * queue never empties. `saturated` resolves once the server has told `NOISY_LOOPS - 2` of its
 * calls that they wait for a worker; `stop` resolves how many calls were told so (the calls
 * still queued are cancelled through the SDK's abort, which cancels their wait for a worker).
 */
function startNoise(client: Client): { stop: () => Promise<number>; saturated: Promise<void> } {
  const controller = new AbortController();
  let queued = 0;
  let saturate!: () => void;
  const saturated = new Promise<void>((resolve) => (saturate = resolve));
  const onQueued = () => {
    queued += 1;
    if (queued >= NOISY_LOOPS - 2) saturate();
  };
  const loops = Array.from({ length: NOISY_LOOPS }, async () => {
    while (!controller.signal.aborted) {
      try {
        await queueWait(client, "slow", { ms: NOISY_CALL_MS }, { signal: controller.signal, onQueued });
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      }
    }
  });
  const all = Promise.all(loops);
  return {
    saturated: Promise.race([saturated, all.then(() => undefined)]),
    async stop() {
      controller.abort();
      await all;
      return queued;
    },
  };
}

/** Baseline, then the same quiet calls while the noisy tenant saturates the pool. */
async function measure(server: HttpMcpServer) {
  const quiet = await connectAs(server, QUIET);
  const noisy = await connectAs(server, NOISY);
  try {
    // Warm-up: both workers loaded and the arguments' validation compiled.
    await Promise.all([queueWait(quiet, "quick", {}), queueWait(noisy, "quick", {})]);
    await Promise.all([queueWait(quiet, "quick", {}), queueWait(noisy, "quick", {})]);
    const alone = await quietWaits(quiet);
    const noise = startNoise(noisy);
    await noise.saturated;
    const crowded = await quietWaits(quiet);
    const noisyQueued = await noise.stop();
    return { alone, crowded, noisyQueued };
  } finally {
    await Promise.all([quiet.close(), noisy.close()]);
  }
}

describe("BUD-5 MCP worker pool fairness between tenants", () => {
  it("BUD-5 a noisy tenant saturating its share does not raise the quiet tenant's p95 queue wait beyond half a noisy call (--workers 2 --tenant-concurrency 1, OAuth subjects)", async () => {
    const port = await freePort();
    const audience = `http://127.0.0.1:${port}/mcp`;
    const server = await startHttpMcp(project, ["--port", String(port), "--oauth-issuer", as.issuer, "--oauth-audience", audience, "--data-dir", join(tmp, "data-capped"), "--workers", "2", "--tenant-concurrency", "1"]);
    try {
      const { alone, crowded, noisyQueued } = await measure(server);
      const margin = NOISY_CALL_MS / 2;
      process.stderr.write(`BUD-5 quiet p95 queue wait: alone ${percentile(alone, 95)} ms, with the noisy tenant ${percentile(crowded, 95)} ms (margin ${margin} ms); noisy calls queued: ${noisyQueued}\n`);
      // The noise was real: the noisy tenant kept calls waiting for a worker all along.
      expect(noisyQueued).toBeGreaterThanOrEqual(NOISY_LOOPS - 2);
      expect(percentile(crowded, 95)).toBeLessThanOrEqual(percentile(alone, 95) + margin);
    } finally {
      await server.stop();
    }
  });

  it("BUD-5 the caller's tenant (its token's subject) is the tenant budget of the run's agents: each OAuth client is charged on its own budget", async () => {
    const port = await freePort();
    const server = await startHttpMcp(budgetProject, ["--port", String(port), "--oauth-issuer", as.issuer, "--oauth-audience", `http://127.0.0.1:${port}/mcp`, "--data-dir", join(tmp, "data-budget"), "--workers", "1"]);
    try {
      const spent: Record<string, unknown> = {};
      for (const [client, calls] of [[QUIET, 1], [NOISY, 2]] as const) {
        const authProvider = new ClientCredentialsProvider({ clientId: client.clientId, clientSecret: client.clientSecret, scope: client.scope, expectedIssuer: as.issuer });
        const mcp = await connectHttp(server.url, { transport: { authProvider } });
        try {
          let output: unknown;
          for (let i = 0; i < calls; i += 1) {
            const result = (await mcp.callTool({ name: "spend", arguments: {} }, undefined, { timeout: 120_000 })) as CallToolResult;
            expect(result.isError ?? false).toBe(false);
            output = (result.structuredContent as { output?: unknown }).output;
          }
          const subject = JSON.parse(Buffer.from(authProvider.tokens()!.access_token.split(".")[1]!, "base64url").toString()).sub as string;
          expect(subject).toBe(client.clientId);
          spent[subject] = output;
        } finally {
          await mcp.close();
        }
      }
      // 50 tokens a call, settled on each caller's own tenant budget (TEN-1: the tenant key is namespaced by its source).
      expect(spent).toEqual({ quiet: { tenantId: "oauth:quiet", spent: 50 }, noisy: { tenantId: "oauth:noisy", spent: 100 } });
    } finally {
      await server.stop();
    }
  });

  it("BUD-5 a static token is one tenant: with --tenant-concurrency 1 its second concurrent call waits although a worker is free", async () => {
    const token = "static-token-0123456789abcdef";
    const tokenFile = join(tmp, "token");
    await writeFile(tokenFile, token);
    const server = await startHttpMcp(project, ["--auth-token-file", tokenFile, "--data-dir", join(tmp, "data-static"), "--workers", "2", "--tenant-concurrency", "1"]);
    const connect = () => connectHttp(server.url, { transport: { requestInit: { headers: { authorization: `Bearer ${token}` } } } });
    const [first, second] = await Promise.all([connect(), connect()]);
    const gate = await startGate();
    try {
      // Both workers loaded (two quick calls side by side), so a free worker is there for the second held call.
      await Promise.all([queueWait(first, "quick", {}), queueWait(second, "quick", {})]);
      let queued = 0;
      // The calls hold their workers until one of them is told it waits (then the gate opens), or
      // for GATE_FALLBACK_MS when neither is: both then ran side by side, and the check fails.
      const onQueued = () => {
        queued += 1;
        gate.open();
      };
      void after(GATE_FALLBACK_MS).then(gate.open);
      await Promise.all([queueWait(first, "held", { gate: gate.url }, { onQueued }), queueWait(second, "held", { gate: gate.url }, { onQueued })]);
      expect(queued).toBe(1);
    } finally {
      await gate.close();
      await Promise.all([first.close(), second.close()]);
      await server.stop();
    }
  });

  it("BUD-5 --tenant-concurrency needs --http and a whole number from 1 to 64 (usage error, exit code 2)", async () => {
    const stdio = await runCli(["mcp", project, "--tenant-concurrency", "1"]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("--tenant-concurrency only applies with --http");
    const zero = await runCli(["mcp", project, "--http", "--tenant-concurrency", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--tenant-concurrency");
  });

  it("BUD-5 without a tenant cap, waiting calls take turns across tenants: the quiet tenant's call runs next, ahead of the noisy calls queued before it (--workers 1)", async () => {
    const port = await freePort();
    const server = await startHttpMcp(project, ["--port", String(port), "--oauth-issuer", as.issuer, "--oauth-audience", `http://127.0.0.1:${port}/mcp`, "--data-dir", join(tmp, "data-turns"), "--workers", "1"]);
    const quiet = await connectAs(server, QUIET);
    const noisy = await connectAs(server, NOISY);
    const gate = await startGate();
    try {
      await queueWait(quiet, "quick", {});
      let queued = 0;
      let saturate!: () => void;
      const saturated = new Promise<void>((resolve) => (saturate = resolve));
      // The noisy calls hold the worker until the gate opens (then each ends at once).
      const noisyStarts = Array.from({ length: 4 }, () => startedAt(noisy, "held", { gate: gate.url }, () => void (++queued === 3 && saturate())));
      // One noisy call runs, three wait for the one worker; then the quiet call arrives and waits
      // too: the gate opens once the server has told it so (or after GATE_FALLBACK_MS).
      await saturated;
      void after(GATE_FALLBACK_MS).then(gate.open);
      const quietStart = await startedAt(quiet, "quick", {}, gate.open);
      const noisyAfterQuiet = (await Promise.all(noisyStarts)).filter((start) => start > quietStart).length;
      // First come first served would run all three queued noisy calls first (none after the quiet one).
      expect(noisyAfterQuiet).toBe(3);
    } finally {
      await gate.close();
      await Promise.all([quiet.close(), noisy.close()]);
      await server.stop();
    }
  });
});
