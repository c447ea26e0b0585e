// Tenancy benchmark (issue 43, TEN-1/TEN-3). Run:
//   npm run bench -- tenancy              (TENANCY_QUICK=1 for a smoke run with small counts)
// (a) `mcp --http` tools/call of the trivial project's `ping` (bench/mcp-http.bench.ts's
//     project, the bin built from the current sources, default workers), one server with OAuth
//     (--oauth-issuer: a real oidc-provider on loopback, two client_credentials clients whose
//     JWT access tokens carry different `sub`, so two tenants) vs the same build with no auth;
//     each side has two warm clients (one per tenant on the OAuth side) and alternates calls
//     between them; blocks of 10 interleaved. p50/p99; goal p50 ratio ≤ 1.05.
// (b) The gateway: one non-streamed Responses request on the offline model (bench/gateway-
//     support.ts's turn) to a gateway accepting API keys (the SQLite key store the CLI opens,
//     two tenants, requests alternating between their keys) vs one accepting a single token;
//     blocks of 10 interleaved. Both keep the request-rate mechanism on with its limit raised
//     out of reach (the default 600/min would refuse the benchmark itself). Goal p50 ratio ≤ 1.05.
// (c) A 100-step durable agent loop (bench/durable-support.ts's, SQLite storage, a conversation)
//     on a tenant-scoped Storage vs the unscoped one, rounds alternating which goes first;
//     goal: the per-step difference (median of the rounds' paired differences) ≤ 0.1 ms.
// (b) and (c) also report this process's CPU time (process.cpuUsage) per request and per step,
// beside the wall-time figures and goals (unchanged): on the shared, loaded machine CPU time
// compares the two sides better than wall time.
// Results go to bench/results/tenancy.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { startGateway } from "../src/compose/gateway.js";
import { openGatewayKeyStore } from "../src/compose/api-keys.js";
import { tenantKey } from "../src/domain/principal.js";
import { tenantStorage } from "../src/app/tenants/tenant-storage.js";
import { startAuthorizationServer, type TestClient } from "../test/fixtures/oidc-authorization-server.js";
import { timedLoop } from "./durable-support.js";
import { benchAgentOptions, cpuMs, respondedMs, TOKEN } from "./gateway-support.js";
import { benchClient, builtCli, interleaved, startListening, timedCall, writeFixtures } from "./mcp-http-support.js";

const here = dirname(fileURLToPath(import.meta.url));
const work = join(here, "tmp", "tenancy");
const root = mkdtempSync(join(tmpdir(), "sh-bench-tenancy-"));
const quick = process.env.TENANCY_QUICK === "1";
const COUNTS = quick ? { mcp: { warmUp: 5, blocks: 4 }, gateway: { warmUp: 5, blocks: 4 }, loopRounds: 3 } : { mcp: { warmUp: 20, blocks: 20 }, gateway: { warmUp: 20, blocks: 40 }, loopRounds: 15 };
const STEPS = 100;
const round = (value: number, digits = 3) => Number(value.toFixed(digits));
/** Nearest-rank percentile. */
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)]!;
const median = (values: number[]) => percentile(values, 50);

/** Two callers of one variant (two tenants, or two clients of the same no-auth server), used in turn. */
interface Pair<T> {
  members: [T, T];
  calls: number;
}
const pair = <T>(members: [T, T]): Pair<T> => ({ members, calls: 0 });
const next = <T>(p: Pair<T>): T => p.members[p.calls++ % 2]!;

/** p50/p99 of both variants (named `names`) and the ratios, against `goal` for the p50 ratio. */
function compared<A extends string, B extends string>(definition: string, names: [A, B], [withMs, baseMs]: [number[], number[]], goal: number) {
  const ratio = percentile(withMs, 50) / percentile(baseMs, 50);
  const raw = (values: number[]) => ({ p50Ms: round(percentile(values, 50)), p99Ms: round(percentile(values, 99)) });
  const variants = { [names[0]]: raw(withMs), [names[1]]: raw(baseMs) } as Record<A | B, { p50Ms: number; p99Ms: number }>;
  return {
    definition,
    samplesEach: withMs.length,
    ...variants,
    p50Ratio: round(ratio),
    p99Ratio: round(percentile(withMs, 99) / percentile(baseMs, 99)),
    goal: `p50 ratio ≤ ${goal}`,
    met: ratio <= goal,
  };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** The `sub` claim of a JWT access token (read, not verified: the server under test verifies it). */
const subOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as { sub?: string }).sub;

// (a) ---------------------------------------------------------------------------------------
async function mcpHttp() {
  const cli = await builtCli(work);
  const { project } = writeFixtures(work);
  const tenants: TestClient[] = ["tenant-a", "tenant-b"].map((id) => ({ clientId: id, clientSecret: `${id}-secret-0123456789`, scope: "mcp:read mcp:run", accessTokenTtl: 3600 }));
  const as = await startAuthorizationServer(tenants);
  const port = await freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const withOAuth = await startListening([cli, "mcp", project, "--http", "--port", String(port), "--oauth-issuer", as.issuer, "--oauth-audience", audience, "--data-dir", join(root, "mcp-oauth")]);
  const open = await startListening([cli, "mcp", project, "--http", "--port", "0", "--data-dir", join(root, "mcp-open")]);
  const clients: Client[] = [];
  try {
    const tokens = await Promise.all(tenants.map((tenant) => as.token(tenant, audience, tenant.scope)));
    const subs = tokens.map(subOf);
    if (subs[0] === undefined || subs[0] === subs[1]) throw new Error(`the two tokens must carry different subs: ${subs.join(", ")}`);
    const oauthPair = pair<Client>([await benchClient(withOAuth.url, { authorization: `Bearer ${tokens[0]}` }), await benchClient(withOAuth.url, { authorization: `Bearer ${tokens[1]}` })]);
    const openPair = pair<Client>([await benchClient(open.url), await benchClient(open.url)]);
    clients.push(...oauthPair.members, ...openPair.members);
    const times = await interleaved(oauthPair, openPair, (p) => timedCall(next(p)), COUNTS.mcp);
    return {
      ...compared(
        "tools/call of the trivial project's ping over Streamable HTTP, mcp --http built from the current sources (default workers); oauth = --oauth-issuer (oidc-provider on loopback, JWT access tokens) with two warm clients of two tenants (different sub) called in turn; none = the same build without auth, two warm clients called in turn; blocks of 10 interleaved",
        ["oauth", "none"],
        times,
        1.05,
      ),
      tokenSubs: subs,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    withOAuth.child.kill("SIGTERM");
    open.child.kill("SIGTERM");
    await as.close();
  }
}

// (b) ---------------------------------------------------------------------------------------
async function gateway() {
  const { agentOptions, trimCalls } = benchAgentOptions();
  // The key store `steamharness gateway --keys` opens by default (<data-dir>/gateway, SQLite),
  // with the ledger its tenants' budgets are reserved in.
  const store = await openGatewayKeyStore({ directory: join(root, "gateway") });
  const secrets = [(await store.keys.add({ id: "tenant-a" }, Date.now())).secret, (await store.keys.add({ id: "tenant-b" }, Date.now())).secret];
  const common = { agent: agentOptions, projectId: "bench", modelId: "bench", rateLimit: { requests: Number.MAX_SAFE_INTEGER, windowMs: 60_000 } };
  const withKeys = await startGateway({ ...common, apiKeys: store.keys, tenantBudgets: store.budgets });
  const withToken = await startGateway({ ...common, token: TOKEN });
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    // Each caller is a gateway URL and the bearer it sends.
    type Caller = { url: string; bearer: string };
    const keysPair = pair<Caller>([{ url: `${withKeys.url}/responses`, bearer: secrets[0]! }, { url: `${withKeys.url}/responses`, bearer: secrets[1]! }]);
    const tokenPair = pair<Caller>([{ url: `${withToken.url}/responses`, bearer: TOKEN }, { url: `${withToken.url}/responses`, bearer: TOKEN }]);
    const cpu = new Map<Pair<Caller>, number[]>([[keysPair, []], [tokenPair, []]]);
    const time = async (p: Pair<Caller>) => {
      const { url, bearer } = next(p);
      const before = cpuMs();
      const ms = await respondedMs(url, keepAlive, bearer);
      cpu.get(p)!.push(cpuMs() - before);
      if (p.calls % 200 === 0) trimCalls();
      return ms;
    };
    const wall = compared(
      "one non-streamed Responses request (the offline model's 480-character answer) through startGateway on 127.0.0.1, keep-alive node:http client; keys = the SQLite key store the CLI opens (two tenants, no limits set, their two keys in turn, tenant budgets in its ledger); token = a single --token; request-rate limit on for both with its limit raised out of reach; blocks of 10 interleaved",
      ["keys", "token"],
      await interleaved(keysPair, tokenPair, time, COUNTS.gateway),
      1.05,
    );
    // The warm-up's requests ran two at a time: their CPU is not one request's.
    const [keysCpu, tokenCpu] = [keysPair, tokenPair].map((p) => cpu.get(p)!.slice(COUNTS.gateway.warmUp)) as [number[], number[]];
    return { ...wall, cpu: { definition: "this process's CPU time (gateways and client) over each measured request, ms; p50 of each side", keysMsPerRequest: round(median(keysCpu), 4), tokenMsPerRequest: round(median(tokenCpu), 4), p50Ratio: round(median(keysCpu) / median(tokenCpu)) } };
  } finally {
    keepAlive.destroy();
    await Promise.all([withKeys.close(), withToken.close()]);
    await store.close();
  }
}

// (c) ---------------------------------------------------------------------------------------
async function durableSteps() {
  const unscoped = createSqliteStorage({ directory: join(root, "durable", "store"), agentStoreDir: join(root, "durable", "agents") });
  // TEN-3: the namespace the gateway gives a key tenant over any Storage (the row prefix); mcp --http's per-tenant folders add no per-step work.
  const scoped = tenantStorage(unscoped, tenantKey("oauth", "tenant-a"));
  const perStep = { scoped: [] as number[], unscoped: [] as number[] };
  const cpuPerStep = { scoped: [] as number[], unscoped: [] as number[] };
  const loop = async (kind: "scoped" | "unscoped", r: number) => {
    const before = cpuMs();
    const { ms, paused } = await timedLoop(kind === "scoped" ? scoped : unscoped, `loop-${kind}-${r}`, STEPS);
    if (!paused) throw new Error("the loop did not end paused on its approval");
    if (r >= 0) cpuPerStep[kind].push((cpuMs() - before) / STEPS);
    return ms / STEPS;
  };
  try {
    // A warm-up round of each, not kept (the first run also loads the SQLite session adapter).
    await loop("scoped", -1);
    await loop("unscoped", -1);
    for (let r = 0; r < COUNTS.loopRounds; r++) {
      const order: Array<"scoped" | "unscoped"> = r % 2 === 0 ? ["scoped", "unscoped"] : ["unscoped", "scoped"];
      for (const kind of order) perStep[kind].push(await loop(kind, r));
    }
  } finally {
    await Promise.all([scoped.close(), unscoped.close()]);
  }
  const differenceMs = median(perStep.scoped.map((ms, r) => ms - perStep.unscoped[r]!));
  return {
    definition: `one ${STEPS}-step durable agent loop (offline model, one tool call per step, ending paused on an approval) in a fresh conversation per run on a SQLite storage; scoped = tenantStorage(unscoped, tenant) (every row under the tenant's project-id prefix, sessions under its conversation prefix: TEN-3's namespace over any Storage), unscoped = the same SQLite storage unwrapped; ${COUNTS.loopRounds} rounds alternating which goes first, after one warm-up run each`,
    rounds: perStep.scoped.length,
    scopedMsPerStep: round(median(perStep.scoped)),
    unscopedMsPerStep: round(median(perStep.unscoped)),
    differenceMsPerStep: round(differenceMs, 4),
    statistic: "median of the rounds' paired differences (scoped − unscoped ms per step)",
    ratio: round(median(perStep.scoped) / median(perStep.unscoped)),
    goal: "difference ≤ 0.1 ms per step",
    met: differenceMs <= 0.1,
    perRound: { scoped: perStep.scoped.map((ms) => round(ms)), unscoped: perStep.unscoped.map((ms) => round(ms)) },
    cpu: {
      definition: "this process's CPU time per step of each run, ms; median of each side and of the rounds' paired differences",
      scopedMsPerStep: round(median(cpuPerStep.scoped), 4),
      unscopedMsPerStep: round(median(cpuPerStep.unscoped), 4),
      differenceMsPerStep: round(median(cpuPerStep.scoped.map((ms, r) => ms - cpuPerStep.unscoped[r]!)), 4),
    },
  };
}

try {
  const loadBefore = loadavg().map((value) => round(value, 2));
  const mcp = await mcpHttp();
  console.log(`(a) mcp --http tools/call p50: OAuth (2 tenants) ${mcp.oauth.p50Ms} ms, no auth ${mcp.none.p50Ms} ms → ${mcp.p50Ratio}× (goal ≤ 1.05: ${mcp.met ? "met" : "MISSED"})`);
  const gw = await gateway();
  console.log(`(b) gateway request p50: keys (2 tenants) ${gw.keys.p50Ms} ms, single token ${gw.token.p50Ms} ms → ${gw.p50Ratio}× (goal ≤ 1.05: ${gw.met ? "met" : "MISSED"}); CPU ${gw.cpu.keysMsPerRequest} vs ${gw.cpu.tokenMsPerRequest} ms → ${gw.cpu.p50Ratio}×`);
  const durable = await durableSteps();
  console.log(`(c) durable step: tenant-scoped ${durable.scopedMsPerStep} ms, unscoped ${durable.unscopedMsPerStep} ms → ${durable.differenceMsPerStep >= 0 ? "+" : ""}${durable.differenceMsPerStep} ms per step (goal ≤ 0.1 ms: ${durable.met ? "met" : "MISSED"}); CPU ${durable.cpu.scopedMsPerStep} vs ${durable.cpu.unscopedMsPerStep} ms → ${durable.cpu.differenceMsPerStep} ms per step`);
  const results = {
    benchmark: "tenancy",
    at: new Date().toISOString(),
    node: process.version,
    counts: quick ? "TENANCY_QUICK=1: smoke-run counts, not figures" : "full",
    loadAverage: { before: loadBefore, after: loadavg().map((value) => round(value, 2)) },
    mcpHttpOAuth: mcp,
    gatewayKeys: gw,
    durableNamespacing: durable,
  };
  mkdirSync(join(here, "results"), { recursive: true });
  writeFileSync(join(here, "results", "tenancy.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("wrote bench/results/tenancy.json");
} finally {
  rmSync(root, { recursive: true, force: true });
}
