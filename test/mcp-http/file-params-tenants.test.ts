// TEN-2 over MCP: real `steamharness mcp --http` processes with two API-key tenants (`--keys`) or
// two OAuth clients of a real authorization server, and the SDK's Streamable HTTP client. Tenant B names the server's own state as a file param — the run
// index the server opened, the MCP task store, the key store, `.git/config`, `.env`, and hard
// links to them inside an allowed root — and is refused with texts that name no server path;
// without --allow-file-root there are no file roots at all; `{tenant}` roots are per tenant.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { existsSync } from "node:fs";
import { link, mkdir, readdir, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { tenantSegment } from "../../src/app/tenants/tenant-segment.js";
import { startAuthorizationServer, type TestClient } from "../fixtures/oidc-authorization-server.js";
import { cleanup, copyKitchen, rejection, runCli, tempDir } from "../cli/helpers.js";
import { connectHttp, connectWithKey, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { freePort } from "../fixtures/tenant-credentials.js";

jest.setTimeout(180_000);

let tmp: string;
let project: string;
let store: string;
let data: string;
let docs: string;
let uploads: string;
const keys: Record<string, string> = {};
const servers: HttpMcpServer[] = [];
const clients: Client[] = [];
/** Every refusal text a client saw, scanned for server paths at the end. */
const refusals: string[] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-ten2-");
  project = await copyKitchen(tmp);
  store = join(tmp, "keys");
  data = join(tmp, "data");
  docs = join(tmp, "docs");
  uploads = join(tmp, "uploads");
  // The session folder exists, so the server opens its run index (`_runs.sqlite`, WAL) on the first run.
  // The agent store (alpha's own folder too, TEN-3): a run index is kept where agent sessions already are.
  await mkdir(join(project, ".workflow", "agents", "tenants", tenantSegment("key:alpha")), { recursive: true });
  await mkdir(join(project, ".git"));
  await writeFile(join(project, ".git", "config"), "[remote \"origin\"]\n  url = https://ghp_token@example.com/x.git\n");
  await writeFile(join(project, ".env"), "PROJECT_API_KEY=server-secret-value\n");
  await mkdir(docs);
  await writeFile(join(docs, "report.md"), "# Report\n");
  for (const tenant of ["alpha", "beta"]) {
    const added = await runCli(["gateway", "keys", "add", "--tenant", tenant, "--store", store]);
    expect(added.code).toBe(0);
    keys[tenant] = /^(sh_[A-Za-z0-9_-]{43})$/m.exec(added.stdout)![1]!;
  }
  // Alpha's upload folder under its tenant key, both as the key store names it and namespaced (TEN-1's `key:` keys).
  for (const tenant of ["alpha", "key:alpha"]) {
    await mkdir(join(uploads, tenantSegment(tenant)), { recursive: true });
    await writeFile(join(uploads, tenantSegment(tenant), "alpha.txt"), "alpha's upload\n");
  }
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await Promise.all(servers.map((server) => server.stop()));
  await cleanup(tmp);
});

async function serve(...extra: string[]): Promise<HttpMcpServer> {
  const server = await startHttpMcp(project, ["--keys", "--store", store, "--data-dir", data, "--workers", "1", ...extra]);
  servers.push(server);
  return server;
}

async function connect(server: HttpMcpServer, tenant: string): Promise<Client> {
  const client = await connectWithKey(server.url, keys[tenant]!);
  clients.push(client);
  return client;
}

const echo = (client: Client, doc: string) => client.callTool({ name: "echo", arguments: { text: "t", doc } }, undefined, { timeout: 60_000 });

/** Calls `echo` with `doc` and resolves the refusal of its arguments (DX-17), or fails if the call ran. */
async function refused(client: Client, doc: string): Promise<string> {
  const message = rejection(await echo(client, doc));
  refusals.push(message);
  return message;
}

const importedName = (result: unknown) => ((result as CallToolResult).structuredContent?.output as { params: { doc: { name: string } } }).params.doc.name;

describe("TEN-2 mcp --http with two API-key tenants", () => {
  it("TEN-2 without --allow-file-root a multi-tenant server has no file roots: even a project file is refused, saying what the operator must pass", async () => {
    const server = await serve();
    const beta = await connect(server, "beta");
    const message = await refused(beta, join(project, "workflow.mjs"));
    expect(message).toMatch(/^arguments\.doc cannot be imported: this server has several tenants .*--allow-file-root/);
    // A call without file params still runs.
    expect(((await beta.callTool({ name: "echo", arguments: { text: "t" } })) as CallToolResult).structuredContent?.status).toBe("success");
    await server.stop();
  });

  describe("with --allow-file-root over the whole temp dir and per-tenant uploads", () => {
    let server: HttpMcpServer;
    let alpha: Client;
    let beta: Client;
    let runIndex: string;
    let taskStore: string;
    let keyStore: string;

    beforeAll(async () => {
      server = await serve("--allow-file-root", tmp, "--allow-file-root", join(uploads, "{tenant}"));
      alpha = await connect(server, "alpha");
      beta = await connect(server, "beta");
      // Alpha's run: the server opens (and writes) its run index in alpha's session folder (TEN-3).
      expect(importedName(await echo(alpha, join(docs, "report.md")))).toBe("report.md");
      runIndex = join(project, ".workflow", "agents", "tenants", tenantSegment("key:alpha"), "_runs.sqlite");
      taskStore = join(data, "values", "mcp-tasks.sqlite");
      const keyFiles = (await readdir(store)).filter((name) => name.endsWith(".sqlite"));
      keyStore = join(store, keyFiles[0]!);
      for (const file of [runIndex, `${runIndex}-wal`, taskStore, keyStore]) expect(existsSync(file)).toBe(true);
      // Hard links inside the allowed root whose names say nothing.
      await link(runIndex, join(docs, "index-copy.txt"));
      await link(taskStore, join(docs, "tasks-copy.txt"));
      await link(keyStore, join(docs, "keys-copy.txt"));
      await link(join(project, ".env"), join(docs, "env-copy.txt"));
      await link(join(project, ".git", "config"), join(docs, "git-copy.txt"));
    });

    it.each([
      ["the run index", () => runIndex],
      ["the run index's -wal", () => `${runIndex}-wal`],
      ["the run index's -shm", () => `${runIndex}-shm`],
      ["a session folder of the agent store", () => join(project, ".workflow", "agents", "20260101-000000000000", "session.sqlite")],
      ["the MCP task store", () => taskStore],
      ["the API key store", () => keyStore],
      ["the project's .git/config", () => join(project, ".git", "config")],
      ["the project's .env", () => join(project, ".env")],
      ["a hard link to the run index", () => join(docs, "index-copy.txt")],
      ["a hard link to the MCP task store", () => join(docs, "tasks-copy.txt")],
      ["a hard link to the key store", () => join(docs, "keys-copy.txt")],
      ["a hard link to the .env", () => join(docs, "env-copy.txt")],
      ["a hard link to .git/config", () => join(docs, "git-copy.txt")],
    ])("TEN-2 tenant B naming %s as a file param is refused, and the refusal names no server path", async (_label, path) => {
      const message = await refused(beta, path());
      expect(message).toMatch(/^arguments\.doc (is|resolves to a file that is) part of the server's own state/);
      expect(message).not.toContain(tmp);
      expect(message).not.toContain("server-secret-value");
    });

    it("TEN-2 refusals and ordinary files: a plain file in the root is imported for both tenants", async () => {
      expect(importedName(await echo(beta, join(docs, "report.md")))).toBe("report.md");
      expect(await refused(beta, "/etc/hostname-missing/x")).toMatch(/outside the allowed file roots/);
    });
  });

  describe("per-tenant uploads only", () => {
    it("TEN-2 with only a {tenant} root, tenant A imports its own upload and tenant B is refused A's file (outside its roots), naming no path", async () => {
      const server = await serve("--allow-file-root", join(uploads, "{tenant}"));
      try {
        const alpha = await connect(server, "alpha");
        const beta = await connect(server, "beta");
        // Alpha's tenant key is one of the two folder names: alpha imports from that one only.
        const files = ["alpha", "key:alpha"].map((tenant) => join(uploads, tenantSegment(tenant), "alpha.txt"));
        const outcomes = await Promise.all(files.map((file) => echo(alpha, file).then((result) => (result.isError ? null : importedName(result)))));
        expect(outcomes.filter((name) => name !== null)).toEqual(["alpha.txt"]);
        for (const file of files) {
          const message = await refused(beta, file);
          expect(message).toMatch(/^arguments\.doc is outside the allowed file roots/);
          expect(message).not.toContain(tmp);
        }
        expect(await refused(alpha, join(docs, "report.md"))).toMatch(/outside the allowed file roots/);
      } finally {
        await server.stop();
      }
    });
  });

  describe("OAuth tenants", () => {
    const ALICE: TestClient = { clientId: "alice", clientSecret: "alice-secret-0123456789", scope: "mcp:read mcp:run" };
    const BOB: TestClient = { clientId: "bob", clientSecret: "bob-secret-0123456789", scope: "mcp:read mcp:run" };
    it("TEN-2 an OAuth server has no default file roots, and its {tenant} roots are the token subject's own folder", async () => {
      const as = await startAuthorizationServer([ALICE, BOB]);
      // The client-credentials subject is the client id: alice's folder, as a bare or a namespaced (TEN-1) tenant key.
      for (const tenant of ["alice", "oauth:alice"]) {
        await mkdir(join(uploads, tenantSegment(tenant)), { recursive: true });
        await writeFile(join(uploads, tenantSegment(tenant), "alice.txt"), "alice's upload\n");
      }
      const start = async (...extra: string[]) => {
        const port = await freePort();
        const server = await startHttpMcp(project, ["--port", String(port), "--oauth-issuer", as.issuer, "--oauth-audience", `http://127.0.0.1:${port}/mcp`, "--data-dir", data, "--workers", "1", ...extra]);
        servers.push(server);
        return server;
      };
      const login = async (server: HttpMcpServer, who: TestClient) => {
        const client = await connectHttp(server.url, { transport: { authProvider: new ClientCredentialsProvider({ clientId: who.clientId, clientSecret: who.clientSecret, scope: who.scope, expectedIssuer: as.issuer }) } });
        clients.push(client);
        return client;
      };
      try {
        const bare = await start();
        expect(await refused(await login(bare, ALICE), join(project, "workflow.mjs"))).toMatch(/several tenants .*--allow-file-root/);
        await bare.stop();
        const perTenant = await start("--allow-file-root", join(uploads, "{tenant}"));
        const alice = await login(perTenant, ALICE);
        const bob = await login(perTenant, BOB);
        const files = ["alice", "oauth:alice"].map((tenant) => join(uploads, tenantSegment(tenant), "alice.txt"));
        const outcomes = await Promise.all(files.map((file) => echo(alice, file).then((result) => (result.isError ? null : importedName(result)))));
        expect(outcomes.filter((name) => name !== null)).toEqual(["alice.txt"]);
        for (const file of files) expect(await refused(bob, file)).toMatch(/^arguments\.doc is outside the allowed file roots/);
      } finally {
        await as.close();
      }
    });
  });

  it("TEN-2 no refusal text a remote client saw contains an absolute server path", () => {
    expect(refusals.length).toBeGreaterThan(15);
    const serverDirs = [tmp, tmpdir(), homedir(), project, data, store];
    for (const message of refusals) {
      for (const dir of serverDirs) expect(message).not.toContain(dir);
      // Nor any absolute path of two or more segments at all.
      expect(message).not.toMatch(/(^|[\s"'(=])\/[^\s/]+\/\S/);
    }
  });
});
