// MCP-21: authorization on the 2026-07-28 revision. A stateless request has no session to bind a
// token to, so every request is checked on its own: the audience (RFC 8707 resource indicator),
// the scopes of exactly that request (403 with the `WWW-Authenticate` scope challenge), and the
// tenancy principal (TEN-1: no usable `sub`, no request). Two real `mcp --http` hosts on one data
// dir behind one public audience, a real authorization server (oidc-provider), the SDK's v2
// client pinned to 2026-07-28, and raw HTTP for the refusals.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from "../fixtures/oidc-authorization-server.js";
import { freePort } from "../fixtures/tenant-credentials.js";
import { cleanup, KITCHEN, tempDir } from "../cli/helpers.js";
import { rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(120_000);

const MODERN = "2026-07-28";
const RUNNER: TestClient = { clientId: "runner", clientSecret: "runner-secret-0123456789", scope: "mcp:read mcp:run" };
const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret-0123456789", scope: "mcp:read" };
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };

/** A raw 2026-07-28 request: the envelope in `_meta` and the headers the revision requires. */
function modernPost(url: URL, token: string | undefined, method: string, params: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) {
  const headers: Record<string, string> = { "mcp-protocol-version": MODERN, "mcp-method": method };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  if (token) headers.authorization = `Bearer ${token}`;
  return rawPost(url, headers, { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": capabilities } } });
}

let tmp: string;
let as: TestAuthorizationServer;
let a: HttpMcpServer;
let b: HttpMcpServer;
let audience: string;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-oauth-modern-");
  as = await startAuthorizationServer([RUNNER, READER]);
  // Both hosts are one resource behind a load balancer: one public URL, the tokens' audience.
  audience = `http://127.0.0.1:${await freePort()}/mcp`;
  const args = ["--oauth-issuer", as.issuer, "--oauth-audience", audience, "--data-dir", join(tmp, "data"), "--workers", "1"];
  [a, b] = await Promise.all([startHttpMcp(KITCHEN, args), startHttpMcp(KITCHEN, args)]);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await as?.close();
  await cleanup(tmp);
});

/** A v2 client pinned to 2026-07-28 sending `token`; every request goes to the other host. */
async function modernClient(token: string): Promise<Client> {
  let turn = 0;
  const viaOther = (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(new URL(url.pathname, turn++ % 2 === 0 ? a.url : b.url), { ...init, headers });
  };
  const client = new Client({ name: "oauth-modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new StreamableHTTPClientTransport(a.url, { fetch: viaOther }));
  return client;
}

type Answered = { runId: string; status: string; error?: { code: string; pending?: { requestId: string } }; output?: unknown };

describe("MCP-21 authorization on 2026-07-28", () => {
  it("MCP-21 no token, or a token for another audience: 401 invalid_token with the challenge naming the protected-resource metadata, on either host", async () => {
    const other = await as.token(RUNNER, "https://other.example/mcp", RUNNER.scope);
    for (const host of [a, b]) {
      const missing = await modernPost(host.url, undefined, "server/discover");
      expect(missing.status).toBe(401);
      expect(missing.headers["www-authenticate"]).toContain(`resource_metadata="${new URL("/.well-known/oauth-protected-resource/mcp", audience).href}"`);
      // The challenge names the scopes this request needs, so a client asks for no more (RFC 6750 §3).
      expect(missing.headers["www-authenticate"]).toContain('scope="mcp:read"');
      const foreign = await modernPost(host.url, other, "tools/list");
      expect(foreign.status).toBe(401);
      expect(foreign.headers["www-authenticate"]).toMatch(/error="invalid_token".*not issued for this resource/);
    }
    // The metadata names the one resource both hosts are, and the authorization server.
    const metadata = (await (await fetch(new URL("/.well-known/oauth-protected-resource/mcp", b.url))).json()) as { resource: string; authorization_servers: string[] };
    expect(metadata).toMatchObject({ resource: audience, authorization_servers: [expect.stringContaining(new URL(as.issuer).host)] });
  });

  it("MCP-21 insufficient scope: a read-only token discovers and lists over 2026-07-28, but tools/call is 403 with the scope challenge naming mcp:run", async () => {
    const token = await as.token(READER, audience, READER.scope);
    const client = await modernClient(token);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("echo");
      await expect(client.callTool({ name: "echo", arguments: { text: "x" } })).rejects.toThrow();
    } finally {
      await client.close();
    }
    const refused = await modernPost(b.url, token, "tools/call", { name: "echo", arguments: { text: "x" } });
    expect(refused.status).toBe(403);
    expect(refused.headers["www-authenticate"]).toContain('error="insufficient_scope"');
    expect(refused.headers["www-authenticate"]).toContain('scope="mcp:run"');
    expect(refused.headers["www-authenticate"]).toContain("resource_metadata=");
  });

  it("MCP-21 TEN-1 a 2026-07-28 request whose token has no usable sub (the tenant claim) is refused, never given its client's tenant", async () => {
    for (const sub of [null, ""]) {
      const token = await as.token(RUNNER, audience, RUNNER.scope, { sub });
      const refused = await modernPost(a.url, token, "tools/call", { name: "echo", arguments: { text: "x" } });
      expect(refused.status).toBe(401);
      expect(refused.headers["www-authenticate"]).toContain("no usable 'sub' claim");
    }
  });

  it("MCP-21 TEN-1 MCP-19 two OAuth tenants on two stateless hosts: one tenant's requestState is refused to the other on either host exactly like a forged one; its owner answers it on the other host", async () => {
    const [alice, bob] = [await as.token(RUNNER, audience, RUNNER.scope, { sub: "alice" }), await as.token(RUNNER, audience, RUNNER.scope, { sub: "bob" })];
    type Rpc = { result?: { resultType?: string; inputRequests?: Record<string, unknown>; requestState?: string; structuredContent?: Answered }; error?: { code: number; message: string } };
    // A caller that can answer forms, so the run's question is an input request (not -32021).
    const call = async (host: HttpMcpServer, token: string, extra: Record<string, unknown> = {}) =>
      JSON.parse((await modernPost(host.url, token, "tools/call", { name: "ask_twice", arguments: {}, ...extra }, { elicitation: { form: {} } })).body) as Rpc;
    const first = await call(a, alice);
    expect(first.result).toMatchObject({ resultType: "input_required", inputRequests: { "input-1": { method: "elicitation/create" } }, requestState: expect.any(String) });
    const state = first.result!.requestState!;
    const answer = { "input-1": { action: "accept", content: { answer: "blue" } } };
    // Bob, on both hosts, gets exactly what a forged state gets: nothing tells him the run exists.
    const forged = await call(a, bob, { inputResponses: answer, requestState: `${state.slice(0, -3)}AAA` });
    for (const host of [a, b]) expect(await call(host, bob, { inputResponses: answer, requestState: state })).toEqual(forged);
    expect(forged.error).toMatchObject({ code: -32602, message: "Invalid or expired requestState" });
    // Alice continues on the other host: the next question, then the run's result.
    const second = await call(b, alice, { inputResponses: answer, requestState: state });
    expect(second.result).toMatchObject({ resultType: "input_required", inputRequests: { "input-2": { method: "elicitation/create" } } });
    const done = await call(a, alice, { inputResponses: { "input-2": { action: "accept", content: { size: "m" } } }, requestState: second.result!.requestState });
    expect(done.result?.structuredContent).toMatchObject({ status: "success", output: { first: { answer: "blue" }, second: { size: "m" } } });
  });
});
