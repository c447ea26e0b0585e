// Issue 43's cross-tenant matrix, MCP surfaces (TEN-1..TEN-4): tenant A creates, tenant B (another
// tenant with real credentials) tries, and every cell asserts B's refusal AND that A's resource is
// unchanged afterwards. Real processes only: oidc-provider signing the OAuth tokens, the CLI adding
// keys, `steamharness mcp --http` hosts (their workers) and the SDK's Streamable HTTP client.
//
// Surfaces: (1) `mcp --http` with OAuth (two users of one hosted OAuth client: tenants
// `oauth:user-1`, `oauth:user-2`; tasks in the host's SQLite data dir); (2) two `mcp --http --keys`
// hosts on one PostgreSQL (keys, budget ledger and MCP tasks in one schema; tenants `key:acme`,
// `key:globex`), B trying on both hosts wherever the resource is shared by the hosts.
// The gateway and the configuration server: matrix-gateway-config.test.ts.
//
// Cells (✓ = a test below; n/a = no such action on these surfaces, for the reason in the note):
// | kind \ action                 | read                  | list       | write                | cancel           | resume (answer)        | delete             |
// |-------------------------------|-----------------------|------------|----------------------|------------------|------------------------|--------------------|
// | MCP session                   | ✓ POST, GET → 404     | n/a (1)    | n/a (2)              | n/a (3)          | n/a (3)                | ✓ DELETE → 404     |
// | run (paused, by run id)       | n/a (4)               | n/a (4)    | n/a (2)              | n/a (5)          | ✓ "no paused run"      | n/a (4)            |
// | task                          | ✓ tasks/get, /result  | ✓ tasks/list | n/a (2)            | ✓ tasks/cancel   | ✓ input_required → not found, never asked | n/a (6) |
// | KV, knowledge, memory, value, managed file | ✓ get, search → nothing | ✓ list → nothing | ✓ lands in B's own | n/a (7) | n/a (7) | ✓ deletes nothing of A's |
// | file param (import)           | ✓ A's upload, the host's data dir → refused | n/a (1) | n/a (8) | n/a (7) | n/a (7)  | n/a (8)            |
// | budget (keys only)            | n/a (9)               | n/a (9)    | ✓ B's spend is B's   | n/a (7)          | n/a (7)                | n/a (9)            |
// Notes: (1) no remote listing of sessions or files exists. (2) a session, run or task is
// "written" only by creating one, which makes it the creator's: the cells show A's stays A's.
// (3) a session is neither cancelled nor resumed, only used and deleted. (4) runs are not read,
// listed or deleted remotely, only answered by id. (5) a run is cancelled through its task
// (tasks/cancel: the task row) or by notifications/cancelled naming a request id of the caller's
// own session, which cannot name another session's request. (6) MCP has no tasks/delete (task
// retention removes them). (7) no such action on that kind. (8) a file param only reads a file.
// (9) no remote surface reads, lists or deletes a budget: keys and budgets are administered with
// the CLI (`gateway keys`) on the store; budgets are set per key tenant (`gateway keys add
// --budget-tokens`), so that row runs on the keys surface only. An exhausted budget refusing its
// own tenant only: matrix-gateway-config.test.ts.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CancelTaskResultSchema, ListTasksResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { tenantSegment } from "../../src/app/tenants/tenant-segment.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from "../fixtures/oidc-authorization-server.js";
import { describePostgres } from "../fixtures/postgres.js";
import { addTenantKey, freePort } from "../fixtures/tenant-credentials.js";
import { TENANT_STORES_SOURCE } from "../fixtures/tenant-stores.js";
import { connectHttp } from "../mcp-http/helpers.js";
import { rejection } from "../cli/helpers.js";
import { mcpHttpHost } from "../fixtures/mcp-http-host.js";
import { callAsTask, getTask, pollTask, scriptForms, taskResult } from "../mcp-http/task-helpers.js";

jest.setTimeout(180_000);

const PROJECT_ID = "3e9d1c7b-5a2f-4b8e-9c6d-0a1b2c3d4e5f";
const usage = "{ input: 20, output: 30, cacheRead: 0, cacheWrite: 0, total: 50 }";
const WORKFLOW = `import { createAgentNode, runStreamNode, createOfflineModel } from ${JSON.stringify(bundledFixture("test/fixtures/workflow-kit.ts"))};
${TENANT_STORES_SOURCE}
export default {
  entrypoints: {
    write: {
      title: "Write", params: [{ name: "text", type: "string", required: true }],
      async run(params, context) {
        const file = await writeStores(context, params.text);
        return { fileId: file.fileId };
      },
    },
    read: { title: "Read", params: [{ name: "fileId", type: "string", required: true }], run: (params, context) => readStores(context, params.fileId) },
    drop: {
      title: "Drop", params: [{ name: "fileId", type: "string", required: true }],
      async run(params, context) {
        const p = context.projectId;
        return {
          kv: await context.kv.delete({ projectId: p }, "greeting"),
          notes: await context.knowledge.delete(p, "notes"),
          memory: await context.knowledge.delete(p, "memory/profile"),
          counter: await context.values.delete(p, "counter"),
          file: await context.files.delete(p, params.fileId),
        };
      },
    },
    quick: {
      title: "Quick", params: [{ name: "text", type: "string", required: true }, { name: "doc", type: "file" }],
      run: (params, context) => ({ echoed: params.text, doc: params.doc?.name ?? null, runId: context.runId }),
    },
    ask: {
      title: "Ask",
      async run(_params, context) {
        const first = await context.userInput.request({ message: "Your name?", fields: [{ name: "name", type: "string", required: true }] });
        return { runId: context.runId, first };
      },
    },
    spend: {
      title: "Spend", params: [{ name: "calls", type: "number", required: true }],
      async run(params, context) {
        const node = createAgentNode({ models: createOfflineModel({ steps: () => ({ text: "ok", usage: ${usage} }) }), compaction: false, budget: { maxOutputTokens: 100 } });
        for (let call = 0; call < params.calls; call += 1) await runStreamNode(node, { prompt: "go", runId: context.runId + "-" + call }, context.node);
        return { calls: params.calls };
      },
    },
  },
};
`;

/** One tenant on a surface: its bearer, form-capable clients (one per host; [0] on the first) and a client without forms on the first host. */
interface Side {
  bearer: string;
  clients: Client[];
  forms: ReturnType<typeof scriptForms>[];
  plain: Client;
  /** The tenant's own upload folders ({tenant} root), bare and namespaced: exactly one is its. */
  uploads: string[];
}
interface Surface {
  url: URL;
  data: string;
  a: Side;
  b: Side;
}

const host = mcpHttpHost("sh-ten-matrix-mcp-", "ten-matrix", PROJECT_ID, WORKFLOW);
const { serve } = host;

async function connectAs(url: URL, bearer: string, forms: boolean): Promise<Client> {
  const client = await connectHttp(url, { capabilities: forms ? { elicitation: { form: {} } } : {}, transport: { requestInit: { headers: { authorization: `Bearer ${bearer}` } } } });
  return host.track(client);
}

/** A side of tenant `tenantKeys` (its possible folder names) with clients on `urls`, its upload written. */
async function side(uploadsDir: string, tenantKeys: string[], bearer: string, urls: URL[]): Promise<Side> {
  const uploads = tenantKeys.map((key) => join(uploadsDir, tenantSegment(key), "upload.txt"));
  for (const file of uploads) {
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, `the upload of ${tenantKeys[0]}\n`);
  }
  const formClients = await Promise.all(urls.map((url) => connectAs(url, bearer, true)));
  return { bearer, clients: formClients, forms: formClients.map(scriptForms), plain: await connectAs(urls[0]!, bearer, false), uploads };
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, undefined, { timeout: 60_000 })) as CallToolResult;
const output = (result: CallToolResult) => (result.structuredContent as { output: Record<string, unknown> }).output;
const listed = async (client: Client) => (await client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema)).tasks.map((task) => task.taskId);
const cancel = (client: Client, taskId: string) => client.request({ method: "tasks/cancel", params: { taskId } }, CancelTaskResultSchema);
const sessionOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId!;
const failure = (promise: Promise<unknown>) => promise.then((value) => new Error(`accepted: ${JSON.stringify(value).slice(0, 300)}`), (error: unknown) => error);

/** A raw request on session `session` with `bearer`: status and body. */
async function onSession(url: URL, method: string, bearer: string, session: string): Promise<{ status: number; body: string }> {
  const body = method === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: {} }) : undefined;
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${bearer}`, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
  const response = await fetch(url, { method, headers, ...(body ? { body } : {}) });
  return { status: response.status, body: await response.text() };
}

const UNKNOWN_SESSION = "00000000-0000-4000-8000-000000000000";
const UNKNOWN_TASK = `run-${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}`;
const NEVER_RUN = "20260101-000000000000";

/** The cells every MCP surface must pass; `surface()` is read when the cells run. */
function mcpCells(label: string, surface: () => Surface): void {
  it(`TEN-4 matrix (${label}): MCP session × use (POST, GET) and DELETE by id — B gets the 404 of an unknown session; A's session stays open`, async () => {
    const { url, a, b } = surface();
    const session = sessionOf(a.plain);
    const unknown = await onSession(url, "POST", b.bearer, UNKNOWN_SESSION);
    expect(unknown.status).toBe(404);
    expect(await onSession(url, "POST", b.bearer, session)).toEqual(unknown);
    expect((await onSession(url, "GET", b.bearer, session)).status).toBe(404);
    expect((await onSession(url, "DELETE", b.bearer, session)).status).toBe(404);
    expect((await a.plain.listTools()).tools.map((tool) => tool.name)).toContain("ask");
  });

  it(`TEN-3 matrix (${label}): run × resume — B answering A's paused run id gets the error of a run id that never existed; A answers it afterwards`, async () => {
    const { a, b } = surface();
    const waiting = await call(a.plain, "ask");
    const { error, runId } = waiting.structuredContent as { runId: string; error: { code: string; pending: { requestId: string } } };
    expect(error.code).toBe("interaction_required");
    const answer = (id: string, name: string) => ({ "steamharness/answer": { runId: id, requestId: error.pending.requestId, values: { name } } });
    const stranger = String(await failure(call(b.plain, "ask", {}, answer(runId, "Mallory"))));
    const unknown = String(await failure(call(b.plain, "ask", {}, answer(NEVER_RUN, "Mallory"))));
    expect(stranger).toMatch(/no paused run/);
    expect(stranger.replace(runId, NEVER_RUN)).toBe(unknown);
    expect(output(await call(a.plain, "ask", {}, answer(runId, "Alice")))).toEqual({ runId, first: { name: "Alice" } });
  });

  it(`MCP-13 TEN-1 matrix (${label}): task × tasks/get, tasks/result, tasks/cancel, tasks/list on every host — B gets the unknown-task error and no listing; A's task is unchanged`, async () => {
    const { a, b } = surface();
    const task = await callAsTask(a.clients[0]!, "quick", { text: "mine" });
    await pollTask(a.clients[0]!, task.taskId, (seen) => seen.status === "completed");
    for (const stranger of b.clients) {
      const unknown = String(await failure(getTask(stranger, UNKNOWN_TASK)));
      expect(unknown).toMatch(/Task not found/);
      const asUnknown = (error: unknown) => String(error).replaceAll(task.taskId, UNKNOWN_TASK);
      expect(asUnknown(await failure(getTask(stranger, task.taskId)))).toBe(unknown);
      expect(asUnknown(await failure(taskResult(stranger, task.taskId)))).toBe(unknown);
      expect(asUnknown(await failure(cancel(stranger, task.taskId)))).toBe(unknown);
      expect(await listed(stranger)).not.toContain(task.taskId);
    }
    for (const owner of a.clients) {
      expect(await listed(owner)).toContain(task.taskId);
      expect((await getTask(owner, task.taskId)).status).toBe("completed");
      expect((await taskResult(owner, task.taskId)).structuredContent).toMatchObject({ status: "success", output: { echoed: "mine" } });
    }
  });

  it(`MCP-13 TEN-1 matrix (${label}): task × answer and cancel an input_required task — B is not found and is never asked; A answers it (on its last host) and it completes`, async () => {
    const { a, b } = surface();
    const task = await callAsTask(a.clients[0]!, "ask", {});
    await pollTask(a.clients[0]!, task.taskId, (seen) => seen.status === "input_required");
    for (const [index, stranger] of b.clients.entries()) {
      b.forms[index]!.answers.push({ action: "accept", content: { name: "Mallory" } });
      await expect(taskResult(stranger, task.taskId)).rejects.toThrow(/Task not found/);
      await expect(cancel(stranger, task.taskId)).rejects.toThrow(/Task not found/);
      expect(b.forms[index]!.asked).toHaveLength(0);
      b.forms[index]!.answers.length = 0;
    }
    for (const owner of a.clients) expect((await getTask(owner, task.taskId)).status).toBe("input_required");
    a.forms.at(-1)!.answers.push({ action: "accept", content: { name: "Alice" } });
    expect((await taskResult(a.clients.at(-1)!, task.taskId)).structuredContent).toMatchObject({ status: "success", output: { first: { name: "Alice" } } });
  });

  it(`TEN-3 matrix (${label}): KV, knowledge, memory, persistent value, managed file × read, list, write, delete — B's run with the same keys and ids finds nothing, deletes nothing, writes its own; A's data unchanged`, async () => {
    const { a, b } = surface();
    const fileId = output(await call(a.plain, "write", { text: "a-secret" })).fileId as string;
    const nothing = { greeting: null, keys: [], notes: null, memory: null, documents: [], hits: 0, counter: null, file: null };
    expect(output(await call(b.plain, "read", { fileId }))).toEqual(nothing);
    expect(output(await call(b.plain, "drop", { fileId }))).toEqual({ kv: false, notes: false, memory: false, counter: false, file: false });
    const bFileId = output(await call(b.plain, "write", { text: "b-value" })).fileId as string;
    expect(output(await call(b.plain, "read", { fileId: bFileId }))).toMatchObject({ greeting: "b-value", counter: "b-value", file: "a.txt" });
    expect(output(await call(a.plain, "read", { fileId }))).toEqual({
      greeting: "a-secret",
      keys: ["greeting"],
      notes: "zanzibar a-secret",
      memory: "likes a-secret",
      documents: ["memory/profile", "notes"],
      hits: 1,
      counter: "a-secret",
      file: "a.txt",
    });
    expect(output(await call(a.plain, "read", { fileId: bFileId })).file).toBeNull();
  });

  it(`TEN-2 matrix (${label}): file × import through a file param — B naming A's upload or the host's data dir is refused (naming no path); A imports its own upload`, async () => {
    const { a, b, data } = surface();
    const imported = await Promise.all(a.uploads.map((file) => call(a.plain, "quick", { text: "t", doc: file }).then((result) => (result.isError ? null : output(result).doc))));
    expect(imported.filter((name) => name !== null)).toEqual(["upload.txt"]);
    for (const file of [...a.uploads, join(data, "kv"), join(data, "values")]) {
      // DX-17: a refused argument is a tool result the calling model reads.
      const refused = rejection(await call(b.plain, "quick", { text: "t", doc: file }));
      expect(refused).toMatch(/arguments\.doc (is outside the allowed file roots|is part of the server's own state)/);
      expect(refused).not.toContain(host.tmp);
    }
    const own = a.uploads[imported.findIndex((name) => name !== null)]!;
    expect(output(await call(a.plain, "quick", { text: "t", doc: own })).doc).toBe("upload.txt");
  });
}

describe("TEN-1 … TEN-4 matrix: mcp --http with OAuth (oidc-provider; two users of one hosted client)", () => {
  const HOSTED: TestClient = { clientId: "hosted", clientSecret: "hosted-secret-0123456789", scope: "mcp:read mcp:run" };
  let as: TestAuthorizationServer;
  let surface: Surface;

  beforeAll(async () => {
    as = await startAuthorizationServer([HOSTED]);
    const port = await freePort();
    const audience = `http://127.0.0.1:${port}/mcp`;
    const data = join(host.tmp, "oauth-data");
    const uploads = join(host.tmp, "oauth-uploads");
    await mkdir(uploads);
    const server = await serve(["--port", String(port), "--oauth-issuer", as.issuer, "--oauth-audience", audience, "--data-dir", data, "--allow-file-root", join(uploads, "{tenant}")]);
    const token = (sub: string) => as.token(HOSTED, audience, HOSTED.scope, { sub });
    const [a, b] = [await side(uploads, ["user-1", "oauth:user-1"], await token("user-1"), [server.url]), await side(uploads, ["user-2", "oauth:user-2"], await token("user-2"), [server.url])];
    surface = { url: server.url, data, a, b };
  }, 150_000);
  afterAll(async () => {
    await as?.close();
  });

  mcpCells("OAuth", () => surface);
});

describePostgres("TEN-1 … TEN-4 matrix: two mcp --http --keys hosts on one PostgreSQL", (database) => {
  let surface: Surface;
  let where: string[];
  const CAP = 1_000_000;

  beforeAll(async () => {
    where = ["--postgres", database.url, "--postgres-schema", database.schema];
    const [acme, globex] = [await addTenantKey(where, "acme", "--budget-tokens", String(CAP)), await addTenantKey(where, "globex", "--budget-tokens", String(CAP))];
    const uploads = join(host.tmp, "keys-uploads");
    await mkdir(uploads);
    const data = join(host.tmp, "keys-data-1");
    const shared = ["--keys", ...where, "--allow-file-root", join(uploads, "{tenant}")];
    const [one, two] = await Promise.all([serve([...shared, "--data-dir", data]), serve([...shared, "--data-dir", join(host.tmp, "keys-data-2")])]);
    const [a, b] = [await side(uploads, ["acme", "key:acme"], acme, [one!.url, two!.url]), await side(uploads, ["globex", "key:globex"], globex, [one!.url, two!.url])];
    surface = { url: one!.url, data, a, b };
  }, 150_000);

  mcpCells("keys, two hosts on PostgreSQL", () => surface);

  /** A key tenant's budget as the one ledger (PostgreSQL) holds it. */
  async function spent(tenant: string): Promise<number> {
    const store = await createPostgresStorage({ connectionString: database.url, schema: database.schema });
    try {
      const budget = await store.budgets!.read({ scope: "tenant", id: tenant }, Date.now());
      expect(budget.reserved.tokens).toBe(0);
      return budget.spent.tokens;
    } finally {
      await store.close();
    }
  }

  it("BUD-4 matrix (keys, two hosts on PostgreSQL): budget × write — B's model spend (on either host) is charged to B's budget only; A's spend to A's only", async () => {
    const { a, b } = surface;
    const before = { acme: await spent("acme"), globex: await spent("globex") };
    for (const client of b.clients) expect(output(await call(client, "spend", { calls: 2 }))).toEqual({ calls: 2 });
    const afterB = { acme: await spent("acme"), globex: await spent("globex") };
    expect(afterB.acme).toBe(before.acme);
    expect(afterB.globex).toBeGreaterThanOrEqual(before.globex + 4 * 50);
    expect(output(await call(a.clients[1]!, "spend", { calls: 1 }))).toEqual({ calls: 1 });
    const afterA = { acme: await spent("acme"), globex: await spent("globex") };
    expect(afterA.acme).toBeGreaterThanOrEqual(before.acme + 50);
    expect(afterA.globex).toBe(afterB.globex);
  });
});
