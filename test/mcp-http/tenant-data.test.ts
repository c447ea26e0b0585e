// TEN-3 over MCP: on `steamharness mcp --http --keys`, each API key's tenant runs with its own data
// namespace. Tenant A's run writes KV, knowledge (a memory id too), a persistent value and a managed
// file; tenant B's run with the same keys and ids finds none of it, and B answering A's paused run
// id gets the error of a run id that never existed. Real processes: the CLI adding keys, the
// server and its workers, the SDK's Streamable HTTP clients; the SQLite stores read back from disk.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { existsSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { tenantSegment } from "../../src/app/tenants/tenant-segment.js";
import { cleanup, tempDir, writeProject } from "../cli/helpers.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { addTenantKey } from "../fixtures/tenant-credentials.js";
import { TENANT_STORES_SOURCE } from "../fixtures/tenant-stores.js";

jest.setTimeout(180_000);

const PROJECT_ID = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

const WORKFLOW = `${TENANT_STORES_SOURCE}
export default {
  entrypoints: {
    write: {
      title: "Write",
      params: [{ name: "text", type: "string", required: true }],
      async run(params, context) {
        const file = await writeStores(context, params.text);
        return { errCode: 0, errMessage: "", output: { fileId: file.fileId }, attachments: [{ fileId: file.fileId, mimeType: "text/plain" }] };
      },
    },
    created: {
      title: "Created",
      run: (_params, context) => ({ dir: context.fileCreateDir }),
    },
    read: { title: "Read", params: [{ name: "fileId", type: "string", required: true }], run: (params, context) => readStores(context, params.fileId) },
    ask: {
      title: "Ask",
      async run(_params, context) {
        const first = await context.userInput.request({ message: "Your name?", fields: [{ name: "name", type: "string", required: true }] });
        return { runId: context.runId, first };
      },
    },
  },
};
`;

let tmp: string;
let project: string;
let data: string;
let server: HttpMcpServer;
let acme: Client;
let globex: Client;
let secrets: { acme: string; globex: string };

/** MCP-17: a v2 client on the 2026-07-28 revision (no session): its key is the only thing that names its tenant, on every request. */
async function connectModern(secret: string | undefined): Promise<ModernClient> {
  const client = new ModernClient({ name: "modern-tenant", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernTransport(server.url, secret ? { requestInit: { headers: { authorization: `Bearer ${secret}` } } } : {}));
  return client;
}

// No elicitation capability: a call that asks for input ends interaction_required, answerable later by run id.
const connectWith = (secret: string, url: URL = server.url) => connectHttp(url, { transport: { requestInit: { headers: { authorization: `Bearer ${secret}` } } } });
const call = async (client: Client, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, undefined, { timeout: 60_000 })) as CallToolResult;
const output = (result: CallToolResult) => (result.structuredContent as { output: Record<string, unknown> }).output;

/** The tenant folder of a key's tenant under a store dir (the tenant key is the key store's tenant, namespaced by source or not). */
function tenantFolder(storeDir: string, tenant: string): string {
  const candidates = [`key:${tenant}`, tenant].map((key) => join(storeDir, "tenants", tenantSegment(key)));
  const found = candidates.find((folder) => existsSync(folder));
  if (!found) throw new Error(`no tenant folder of ${tenant} under ${storeDir}: ${existsSync(join(storeDir, "tenants")) ? readdirSync(join(storeDir, "tenants")).join(", ") : "no tenants folder"}`);
  return found;
}

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-tenant-data-");
  data = join(tmp, "data");
  const store = join(tmp, "keys");
  project = await writeProject(join(tmp, "project"), {
    "package.json": JSON.stringify({ name: "tenant-data", version: "1.0.0", type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": WORKFLOW,
  });
  const [a, b] = [await addTenantKey(["--store", store], "acme"), await addTenantKey(["--store", store], "globex")];
  secrets = { acme: a, globex: b };
  server = await startHttpMcp(project, ["--keys", "--store", store, "--data-dir", data]);
  [acme, globex] = [await connectWith(a), await connectWith(b)];
}, 120_000);
afterAll(async () => {
  await Promise.all([acme?.close(), globex?.close()]);
  await server?.stop();
  await cleanup(tmp);
});

describe("TEN-3 mcp --http keeps each tenant's data in its own namespace", () => {
  it("TEN-3: tenant B's run with the same keys and ids reads nothing of tenant A's KV, knowledge, memory, values or files; A reads its own (attachments too)", async () => {
    const written = await call(acme, "write", { text: "acme-secret" });
    expect(written.isError).toBeFalsy();
    const fileId = output(written).fileId as string;
    // The attachment is read back from the tenant's own file store.
    expect(written.content.some((block) => block.type === "resource" && "text" in block.resource && block.resource.text === "acme-secret")).toBe(true);

    const seenByGlobex = await call(globex, "read", { fileId });
    expect(seenByGlobex.isError).toBeFalsy();
    expect(output(seenByGlobex)).toEqual({ greeting: null, keys: [], notes: null, memory: null, documents: [], hits: 0, counter: null, file: null });

    // B writing the same keys leaves A's data as it was.
    expect((await call(globex, "write", { text: "globex" })).isError).toBeFalsy();
    expect(output(await call(acme, "read", { fileId }))).toEqual({
      greeting: "acme-secret",
      keys: ["greeting"],
      notes: "zanzibar acme-secret",
      memory: "likes acme-secret",
      documents: ["memory/profile", "notes"],
      hits: 1,
      counter: "acme-secret",
      file: "a.txt",
    });

    // On disk: A's rows are in A's folder of the KV store dir, none in the host's own store.
    const own = createSqliteStorage({ directory: join(data, "kv") });
    const acmeKv = createSqliteStorage({ directory: tenantFolder(join(data, "kv"), "acme") });
    try {
      expect((await acmeKv.kv.get({ projectId: PROJECT_ID }, "greeting"))?.value).toBe("acme-secret");
      expect(await own.kv.get({ projectId: PROJECT_ID }, "greeting")).toBeNull();
    } finally {
      await Promise.all([own.close(), acmeKv.close()]);
    }
    expect(readdirSync(join(data, "values", "tenants")).sort()).toHaveLength(2);
  });

  it("TEN-3: each tenant's runs create files in its own folder of the file-create dir, run after run", async () => {
    const dirs: string[] = [];
    for (const client of [acme, globex, acme, globex]) dirs.push(output(await call(client, "created")).dir as string);
    expect(dirs[0]).toBe(dirs[2]);
    expect(dirs[1]).toBe(dirs[3]);
    expect(dirs[0]).not.toBe(dirs[1]);
    for (const [dir, tenant] of [[dirs[0]!, "acme"], [dirs[1]!, "globex"]] as const) {
      expect(basename(dirname(dir))).toBe("tenants");
      expect([`key:${tenant}`, tenant].map(tenantSegment)).toContain(basename(dir));
      expect(existsSync(dir)).toBe(true);
    }
  });

  it("TEN-3: another tenant answering a paused run by its id gets the error of a run id that never existed; the owner answers it", async () => {
    const waiting = await call(acme, "ask");
    const error = (waiting.structuredContent as { error: { code: string; pending: { requestId: string } } }).error;
    expect(error.code).toBe("interaction_required");
    const runId = (waiting.structuredContent as { runId: string }).runId;
    // The paused run is kept in the owner's namespace only.
    const acmeValues = createSqliteStorage({ directory: tenantFolder(join(data, "values"), "acme") });
    const globexValues = createSqliteStorage({ directory: tenantFolder(join(data, "values"), "globex") });
    try {
      expect(await acmeValues.values.get(PROJECT_ID, `steamharness.run.paused.${runId}`)).not.toBeNull();
      expect(await globexValues.values.get(PROJECT_ID, `steamharness.run.paused.${runId}`)).toBeNull();
    } finally {
      await Promise.all([acmeValues.close(), globexValues.close()]);
    }
    const answer = (id: string) => ({ "steamharness/answer": { runId: id, requestId: error.pending.requestId, values: { name: "Eve" } } });
    const never = "20260101-000000000000";
    const stranger = String(await call(globex, "ask", {}, answer(runId)).catch((e: unknown) => e));
    const unknown = String(await call(globex, "ask", {}, answer(never)).catch((e: unknown) => e));
    expect(stranger).toMatch(/no paused run/);
    expect(stranger.replace(runId, never)).toBe(unknown);
    const done = await call(acme, "ask", {}, answer(runId));
    expect(done.structuredContent).toMatchObject({ status: "success", output: { runId, first: { name: "Eve" } } });
  });

  it("TEN-3: without tenants (one static token) a run's data stays in the host's own stores, and no tenant folder is made", async () => {
    const own = join(tmp, "data-token");
    const tokenFile = join(tmp, "token");
    await writeFile(tokenFile, "static-token-0123456789abcdef\n");
    const single = await startHttpMcp(project, ["--auth-token-file", tokenFile, "--data-dir", own]);
    const client = await connectWith("static-token-0123456789abcdef", single.url);
    try {
      expect((await call(client, "write", { text: "shared" })).isError).toBeFalsy();
    } finally {
      await client.close();
      await single.stop();
    }
    const kv = createSqliteStorage({ directory: join(own, "kv") });
    try {
      expect((await kv.kv.get({ projectId: PROJECT_ID }, "greeting"))?.value).toBe("shared");
    } finally {
      await kv.close();
    }
    for (const store of ["kv", "values", "files"]) expect(existsSync(join(own, store, "tenants"))).toBe(false);
  });

  it("TEN-3 MCP-17: a stateless 2026-07-28 client is its key's tenant on every request (no session binds it): globex reads none of acme's data, acme reads its own, no key is refused", async () => {
    const [modernAcme, modernGlobex] = [await connectModern(secrets.acme), await connectModern(secrets.globex)];
    try {
      expect(modernAcme.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const written = (await modernAcme.callTool({ name: "write", arguments: { text: "acme-modern" } })) as CallToolResult;
      expect(written.isError).toBeFalsy();
      const fileId = output(written).fileId as string;
      const seenByGlobex = output((await modernGlobex.callTool({ name: "read", arguments: { fileId } })) as CallToolResult);
      expect(seenByGlobex.file).toBeNull();
      expect(seenByGlobex.greeting).not.toBe("acme-modern");
      expect(output((await modernAcme.callTool({ name: "read", arguments: { fileId } })) as CallToolResult)).toMatchObject({ greeting: "acme-modern", file: "a.txt" });
    } finally {
      await Promise.all([modernAcme.close(), modernGlobex.close()]);
    }
    await expect(connectModern(undefined)).rejects.toThrow();
  });
});
