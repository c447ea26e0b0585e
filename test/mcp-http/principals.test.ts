// TEN-1 / TEN-4 on `steamharness mcp --http` with OAuth: every request resolves to one principal
// or is refused — a token without the configured tenant claim, or without a usable `sub`, is a
// 401, never its client id's tenant — and the users of one hosted connector (one OAuth client)
// are separate tenants (`oauth:<sub>`) for tasks and sessions. Real processes (the CLI serving
// the project, the CLI adding keys), a real authorization server (oidc-provider) signing the
// tokens, the SDK's Streamable HTTP client and raw HTTP.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListTasksResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, runCli, tempDir } from "../cli/helpers.js";
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from "../fixtures/oidc-authorization-server.js";
import { connectHttp, INITIALIZE, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { callAsTask, getTask, pollTask, taskResult, TASKS_PROJECT } from "./task-helpers.js";
import { freePort } from "../fixtures/tenant-credentials.js";
import { rawHttp } from "../fixtures/raw-http.js";

jest.setTimeout(180_000);

/** One hosted connector: a single OAuth client whose tokens carry each user's own `sub`. */
const HOSTED: TestClient = { clientId: "hosted", clientSecret: "hosted-secret-0123456789", scope: "mcp:read mcp:run" };

let tmp: string;
let as: TestAuthorizationServer;
let bySub: HttpMcpServer;
let byOrg: HttpMcpServer;
let byKey: HttpMcpServer;
let audiences: { sub: string; org: string };
let keySecret: string;
const clients: Client[] = [];

/** A token of the hosted client for `audience` with these claims set (null removes one). */
const tokenWith = (audience: string, claims: Record<string, unknown>) => as.token(HOSTED, audience, HOSTED.scope, claims);

async function connectAs(url: URL, bearer: string): Promise<Client> {
  const client = await connectHttp(url, { transport: { requestInit: { headers: { authorization: `Bearer ${bearer}` } } } });
  clients.push(client);
  return client;
}

const listed = async (client: Client) => (await client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema)).tasks.map((task) => task.taskId);
const sessionOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId!;

const raw = rawHttp;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-principals-");
  as = await startAuthorizationServer([HOSTED]);
  const [subPort, orgPort] = [await freePort(), await freePort()];
  audiences = { sub: `http://127.0.0.1:${subPort}/mcp`, org: `http://127.0.0.1:${orgPort}/mcp` };
  const store = join(tmp, "keys");
  // A key tenant named exactly like an OAuth subject below: namespacing keeps them apart.
  const added = await runCli(["gateway", "keys", "add", "--tenant", "user-1", "--store", store]);
  expect(added.code).toBe(0);
  keySecret = /^(sh_[A-Za-z0-9_-]{43})$/m.exec(added.stdout)![1]!;
  // Two hosts on one data dir share one task store: the OAuth host and the API-key host.
  const data = ["--data-dir", join(tmp, "data"), "--workers", "1"];
  [bySub, byOrg, byKey] = await Promise.all([
    startHttpMcp(TASKS_PROJECT, ["--port", String(subPort), "--oauth-issuer", as.issuer, "--oauth-audience", audiences.sub, ...data]),
    startHttpMcp(TASKS_PROJECT, ["--port", String(orgPort), "--oauth-issuer", as.issuer, "--oauth-audience", audiences.org, "--oauth-tenant-claim", "org", "--data-dir", join(tmp, "data-org"), "--workers", "1"]),
    startHttpMcp(TASKS_PROJECT, ["--keys", "--store", store, ...data]),
  ]);
}, 150_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await Promise.all([bySub?.stop(), byOrg?.stop(), byKey?.stop()]);
  await as?.close();
  await cleanup(tmp);
});

describe("TEN-1 one principal per OAuth request, no fallbacks", () => {
  it("TEN-1: a token whose sub is missing, empty or not a string is refused with 401 invalid_token naming the claim", async () => {
    for (const sub of [null, "", "   ", 42, ["user-1"]]) {
      const response = await rawPost(bySub.url, { authorization: `Bearer ${await tokenWith(audiences.sub, { sub })}` }, INITIALIZE);
      expect([sub, response.status]).toEqual([sub, 401]);
      expect(response.headers["www-authenticate"]).toContain('error="invalid_token"');
      expect(response.headers["www-authenticate"]).toContain("no usable 'sub' claim");
    }
    // The same client with a usable sub is served.
    expect((await rawPost(bySub.url, { authorization: `Bearer ${await tokenWith(audiences.sub, { sub: "user-1" })}` }, INITIALIZE)).status).toBe(200);
  });

  it("TEN-1: with --oauth-tenant-claim, a token without that claim (or with an empty or non-string one) is refused with 401, never given its client id's tenant", async () => {
    for (const org of [null, "", 7]) {
      const response = await rawPost(byOrg.url, { authorization: `Bearer ${await tokenWith(audiences.org, { sub: "user-1", org })}` }, INITIALIZE);
      expect([org, response.status]).toEqual([org, 401]);
      expect(response.headers["www-authenticate"]).toContain("no usable 'org' claim (the tenant claim)");
    }
    expect((await rawPost(byOrg.url, { authorization: `Bearer ${await tokenWith(audiences.org, { sub: "user-1", org: "acme" })}` }, INITIALIZE)).status).toBe(200);
  });

  it("TEN-1: two users of one OAuth client are two tenants: user-2 can neither list nor read user-1's task; user-1 can", async () => {
    const [user1, user2] = [await connectAs(bySub.url, await tokenWith(audiences.sub, { sub: "user-1" })), await connectAs(bySub.url, await tokenWith(audiences.sub, { sub: "user-2" }))];
    const task = await callAsTask(user1, "quick", { text: "private" });
    await pollTask(user1, task.taskId, (seen) => seen.status === "completed");
    expect(await listed(user2)).not.toContain(task.taskId);
    await expect(getTask(user2, task.taskId)).rejects.toThrow(/Task not found/);
    await expect(taskResult(user2, task.taskId)).rejects.toThrow(/Task not found/);
    expect(await listed(user1)).toContain(task.taskId);
    expect((await taskResult(user1, task.taskId)).structuredContent).toMatchObject({ status: "success", output: { echoed: "private" } });
  });

  it("TEN-1: the tenant claim groups users: two subjects of one org share its tasks, another org's subject does not", async () => {
    const token = (sub: string, org: string) => tokenWith(audiences.org, { sub, org });
    const [alice, bob, mallory] = [await connectAs(byOrg.url, await token("alice", "acme")), await connectAs(byOrg.url, await token("bob", "acme")), await connectAs(byOrg.url, await token("mallory", "other"))];
    const task = await callAsTask(alice, "quick", { text: "team" });
    await pollTask(alice, task.taskId, (seen) => seen.status === "completed");
    expect(await listed(bob)).toContain(task.taskId);
    expect(await listed(mallory)).not.toContain(task.taskId);
    await expect(getTask(mallory, task.taskId)).rejects.toThrow(/Task not found/);
  });

  it("TEN-1: tenant keys are namespaced by source: an API key's tenant named like an OAuth subject (user-1) does not see that subject's tasks in the shared store", async () => {
    const user1 = await connectAs(bySub.url, await tokenWith(audiences.sub, { sub: "user-1" }));
    const task = await callAsTask(user1, "quick", { text: "oauth only" });
    await pollTask(user1, task.taskId, (seen) => seen.status === "completed");
    const keyHolder = await connectAs(byKey.url, keySecret);
    expect(await listed(keyHolder)).not.toContain(task.taskId);
    await expect(getTask(keyHolder, task.taskId)).rejects.toThrow(/Task not found/);
    // The store is shared: a task the key tenant creates is its own, and invisible to the OAuth subject.
    const own = await callAsTask(keyHolder, "quick", { text: "key only" });
    await pollTask(keyHolder, own.taskId, (seen) => seen.status === "completed");
    expect(await listed(keyHolder)).toContain(own.taskId);
    expect(await listed(user1)).not.toContain(own.taskId);
  });
});

describe("TEN-4 an OAuth session belongs to its subject", () => {
  it("TEN-4: another user of the same OAuth client gets 404 for a session, for requests and DELETE, and the session stays open", async () => {
    const user1Token = await tokenWith(audiences.sub, { sub: "user-1" });
    const user2Token = await tokenWith(audiences.sub, { sub: "user-2" });
    const user1 = await connectAs(bySub.url, user1Token);
    const session = sessionOf(user1);
    const headers = (bearer: string) => ({ authorization: `Bearer ${bearer}`, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" });
    const list = { jsonrpc: "2.0", id: 9, method: "tools/list", params: {} };
    const foreign = await raw(bySub.url, "POST", headers(user2Token), list);
    expect(foreign.status).toBe(404);
    const unknown = await raw(bySub.url, "POST", { ...headers(user2Token), "mcp-session-id": "00000000-0000-4000-8000-000000000000" }, list);
    expect(foreign.body).toBe(unknown.body);
    expect((await raw(bySub.url, "DELETE", headers(user2Token))).status).toBe(404);
    expect((await raw(bySub.url, "GET", headers(user2Token))).status).toBe(404);
    // Still user-1's, and open.
    expect((await user1.listTools()).tools.length).toBeGreaterThan(0);
    expect((await raw(bySub.url, "POST", headers(user1Token), list)).status).toBe(200);
    expect((await raw(bySub.url, "DELETE", headers(user1Token))).status).toBe(200);
    expect((await raw(bySub.url, "POST", headers(user1Token), list)).status).toBe(404);
  });

  it("TEN-4: with --oauth-tenant-claim, two subjects of one tenant still have separate sessions: the other subject gets 404", async () => {
    const [aliceToken, bobToken] = [await tokenWith(audiences.org, { sub: "alice", org: "acme" }), await tokenWith(audiences.org, { sub: "bob", org: "acme" })];
    const alice = await connectAs(byOrg.url, aliceToken);
    const headers = (bearer: string) => ({ authorization: `Bearer ${bearer}`, "mcp-session-id": sessionOf(alice), "mcp-protocol-version": "2025-11-25" });
    const list = { jsonrpc: "2.0", id: 9, method: "tools/list", params: {} };
    expect((await raw(byOrg.url, "POST", headers(bobToken), list)).status).toBe(404);
    expect((await raw(byOrg.url, "DELETE", headers(bobToken))).status).toBe(404);
    expect((await alice.listTools()).tools.length).toBeGreaterThan(0);
  });
});
