// TEN-4 on `steamharness mcp --http --keys`: an MCP session (Mcp-Session-Id) belongs to the
// principal that opened it — another key, of another tenant or of the same one, gets 404 for
// it, DELETE included, and cannot close it — and each tenant holds at most
// --max-sessions-per-tenant sessions, so a tenant opening many evicts only its own. Real
// processes (the CLI adding keys, the server), the SDK's Streamable HTTP client, raw HTTP.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cleanup, tempDir } from "../cli/helpers.js";
import { connectWithKey, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { TASKS_PROJECT } from "./task-helpers.js";
import { addTenantKey } from "../fixtures/tenant-credentials.js";
import { rawHttp } from "../fixtures/raw-http.js";

jest.setTimeout(180_000);

let tmp: string;
let server: HttpMcpServer;
let keys: { alice: string; aliceToo: string; bob: string };
const clients: Client[] = [];

async function connect(secret: string): Promise<Client> {
  const client = await connectWithKey(server.url, secret);
  clients.push(client);
  return client;
}

const sessionOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId!;
const LIST = { jsonrpc: "2.0", id: 9, method: "tools/list", params: {} };

/** A raw request on a session with a key: status and body. */
async function onSession(method: string, session: string, secret: string, body?: unknown): Promise<{ status: number; body: string }> {
  const answer = await rawHttp(server.url, method, { authorization: `Bearer ${secret}`, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }, body);
  return { status: answer.status, body: answer.body };
}

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-session-principals-");
  const store = join(tmp, "keys");
  keys = { alice: await addTenantKey(["--store", store], "alice"), aliceToo: await addTenantKey(["--store", store], "alice"), bob: await addTenantKey(["--store", store], "bob") };
  server = await startHttpMcp(TASKS_PROJECT, ["--keys", "--store", store, "--data-dir", join(tmp, "data"), "--max-sessions-per-tenant", "2"]);
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await server?.stop();
  await cleanup(tmp);
});

describe("TEN-4 MCP sessions are bound to their principal and capped per tenant", () => {
  it("TEN-4: another tenant's key (and another key of the same tenant) gets 404 for a session, for requests, GET and DELETE; the session stays open for its own key", async () => {
    const alice = await connect(keys.alice);
    const session = sessionOf(alice);
    const unknown = await onSession("POST", "00000000-0000-4000-8000-000000000000", keys.bob, LIST);
    for (const stranger of [keys.bob, keys.aliceToo]) {
      const foreign = await onSession("POST", session, stranger, LIST);
      expect(foreign).toEqual(unknown);
      expect(foreign.status).toBe(404);
      expect((await onSession("GET", session, stranger)).status).toBe(404);
      expect((await onSession("DELETE", session, stranger)).status).toBe(404);
    }
    expect((await alice.listTools()).tools.length).toBeGreaterThan(0);
    expect((await onSession("DELETE", session, keys.alice)).status).toBe(200);
    expect((await onSession("POST", session, keys.alice, LIST)).status).toBe(404);
  });

  it("TEN-4: a tenant opening sessions beyond --max-sessions-per-tenant closes only its own least recently used one; another tenant's session stays", async () => {
    const bob = await connect(keys.bob);
    const [first, second] = [await connect(keys.alice), await connect(keys.alice)];
    await first.listTools(); // second is now alice's least recently used
    const third = await connect(keys.alice);
    const evicted = await onSession("POST", sessionOf(second), keys.alice, LIST);
    expect(evicted.status).toBe(404);
    for (const client of [first, third, bob]) expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // Many more of alice's sessions still never touch bob's.
    for (let i = 0; i < 4; i += 1) await connect(keys.alice);
    expect((await onSession("POST", sessionOf(bob), keys.bob, LIST)).status).toBe(200);
    expect((await onSession("POST", sessionOf(first), keys.alice, LIST)).status).toBe(404);
  });
});
