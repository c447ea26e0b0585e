// MCP-12: `steamharness mcp --http` as an OAuth 2.1 resource server, against a real
// authorization server (oidc-provider) running in this test; the SDK client gets its tokens
// through its own OAuth support (client_credentials).
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { scopesOfRequest } from "../../src/adapters/driving/mcp/transport/http-scopes.js";
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from "../fixtures/oidc-authorization-server.js";
import { cleanup, KITCHEN, runCli, tempDir } from "../cli/helpers.js";
import { connectHttp, INITIALIZE, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { freePort } from "../fixtures/tenant-credentials.js";

jest.setTimeout(120_000);

const RUNNER: TestClient = { clientId: "runner", clientSecret: "runner-secret-0123456789", scope: "mcp:read mcp:run" };
const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret-0123456789", scope: "mcp:read" };
// A 3 s lifetime: a JWT's exp is whole seconds from its issue second, so a 1 s token could be valid for only a few ms (a loaded CI run saw it expire before its first use).
const SHORT: TestClient = { clientId: "short", clientSecret: "short-secret-0123456789", scope: "mcp:read mcp:run", accessTokenTtl: 3 };
const CALL = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } };

let tmp: string;
let as: TestAuthorizationServer;
let mcp: HttpMcpServer;
let audience: string;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-oauth-");
  as = await startAuthorizationServer([RUNNER, READER, SHORT]);
  const port = await freePort();
  audience = `http://127.0.0.1:${port}/mcp`;
  mcp = await startHttpMcp(KITCHEN, ["--port", String(port), "--oauth-issuer", as.issuer, "--oauth-audience", audience, "--data-dir", join(tmp, "data"), "--workers", "1"]);
}, 120_000);
afterAll(async () => {
  await mcp?.stop();
  await as?.close();
  await cleanup(tmp);
});

describe("MCP-12 OAuth resource server", () => {
  it("MCP-12 publishes RFC 9728 protected-resource metadata naming the authorization server and the scopes", async () => {
    const response = await fetch(new URL("/.well-known/oauth-protected-resource/mcp", mcp.url));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ resource: audience, authorization_servers: [as.issuer], scopes_supported: ["mcp:read", "mcp:run"] });
  });

  it("MCP-12 no token: 401 with WWW-Authenticate naming the metadata URL", async () => {
    const response = await rawPost(mcp.url, {}, INITIALIZE);
    expect(response.status).toBe(401);
    expect(response.headers["www-authenticate"]).toContain('Bearer error="invalid_token"');
    expect(response.headers["www-authenticate"]).toContain(`resource_metadata="${new URL("/.well-known/oauth-protected-resource/mcp", mcp.url).href}"`);
  });

  it("MCP-12 good token: the SDK client obtains one through its OAuth support (client_credentials) and lists and calls tools", async () => {
    const authProvider = new ClientCredentialsProvider({ clientId: RUNNER.clientId, clientSecret: RUNNER.clientSecret, scope: RUNNER.scope, expectedIssuer: as.issuer });
    const client = await connectHttp(mcp.url, { transport: { authProvider } });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("echo");
      const result = (await client.callTool({ name: "echo", arguments: { text: "authorized" } })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ status: "success", output: { params: { text: "authorized" } } });
      const token = authProvider.tokens()?.access_token;
      expect(JSON.parse(Buffer.from(token!.split(".")[1]!, "base64url").toString())).toMatchObject({ aud: audience, iss: as.issuer });
    } finally {
      await client.close();
    }
  });

  it("MCP-12 TEN-1 expired token: 401 invalid_token (expired), also after it was verified (and cached) while valid", async () => {
    const token = await as.token(SHORT, audience, SHORT.scope);
    expect((await rawPost(mcp.url, { authorization: `Bearer ${token}` }, INITIALIZE)).status).toBe(200);
    // Until the token's own expiry has passed (its exp, whole seconds), not a fixed 4.2 s (ARCH-12).
    const { exp } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { exp: number };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 + 250 - Date.now())));
    const response = await rawPost(mcp.url, { authorization: `Bearer ${token}` }, INITIALIZE);
    expect(response.status).toBe(401);
    expect(response.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect(response.headers["www-authenticate"]).toContain("expired");
  });

  it("MCP-12 TEN-1 a token verified once is cached by its whole text: the same token with its signature altered is refused (401), the original still passes", async () => {
    const token = await as.token(RUNNER, audience, RUNNER.scope);
    expect((await rawPost(mcp.url, { authorization: `Bearer ${token}` }, INITIALIZE)).status).toBe(200);
    const [header, payload, signature] = token.split(".");
    const altered = `${header}.${payload}.${signature!.slice(0, -4)}${signature!.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    const refused = await rawPost(mcp.url, { authorization: `Bearer ${altered}` }, INITIALIZE);
    expect(refused.status).toBe(401);
    expect(refused.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect((await rawPost(mcp.url, { authorization: `Bearer ${token}` }, INITIALIZE)).status).toBe(200);
  });

  it("MCP-12 token for another resource (wrong audience): 401 invalid_token", async () => {
    const token = await as.token(RUNNER, "https://other.example/mcp", RUNNER.scope);
    const response = await rawPost(mcp.url, { authorization: `Bearer ${token}` }, INITIALIZE);
    expect(response.status).toBe(401);
    expect(response.headers["www-authenticate"]).toContain("not issued for this resource");
  });

  it("MCP-12 missing scope: a read-only token connects and lists, but tools/call is 403 insufficient_scope naming mcp:run", async () => {
    const authProvider = new ClientCredentialsProvider({ clientId: READER.clientId, clientSecret: READER.clientSecret, scope: READER.scope, expectedIssuer: as.issuer });
    const client = await connectHttp(mcp.url, { transport: { authProvider } });
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await expect(client.callTool({ name: "echo", arguments: { text: "x" } })).rejects.toThrow();
    } finally {
      await client.close();
    }
    const token = await as.token(READER, audience, READER.scope);
    const response = await rawPost(mcp.url, { authorization: `Bearer ${token}` }, CALL);
    expect(response.status).toBe(403);
    expect(response.headers["www-authenticate"]).toContain('error="insufficient_scope"');
    expect(response.headers["www-authenticate"]).toContain('scope="mcp:run"');
  });

  it("MCP-12 scopes per tool: a policy's tool entry replaces run for that tool; batches need the union", () => {
    const policy = { read: ["mcp:read"], run: ["mcp:run"], tools: { deploy: ["deploy:run"] } };
    expect(scopesOfRequest(INITIALIZE, policy)).toEqual(["mcp:read"]);
    expect(scopesOfRequest(CALL, policy)).toEqual(["mcp:run"]);
    expect(scopesOfRequest({ ...CALL, params: { name: "deploy" } }, policy)).toEqual(["deploy:run"]);
    expect(scopesOfRequest([INITIALIZE, { ...CALL, params: { name: "deploy" } }], policy)).toEqual(["deploy:run", "mcp:read"]);
    expect(scopesOfRequest({ ...CALL, params: { name: "constructor" } }, policy)).toEqual(["mcp:run"]);
  });

  it("MCP-12 a malformed scopes config or a lone --oauth-issuer is a usage error (exit code 2) naming the problem", async () => {
    const config = join(tmp, "scopes.json");
    await writeFile(config, JSON.stringify({ read: ["mcp:read"], run: [] }));
    const bad = await runCli(["mcp", KITCHEN, "--http", "--oauth-issuer", as.issuer, "--oauth-audience", audience, "--oauth-scopes-config", config]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("the scopes config is invalid at /run");
    const lone = await runCli(["mcp", KITCHEN, "--http", "--oauth-issuer", as.issuer]);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain("needs both --oauth-issuer");
  });

  it("DX-18 an --oauth-issuer whose metadata is not OAuth metadata is one readable line naming the bad fields (exit code 2), not a schema dump", async () => {
    // A loopback server that answers every well-known URL with a JSON document that is not RFC 8414 metadata.
    const notAnIssuer = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ issuer: 5, hello: "x" })));
    await new Promise<void>((resolve) => notAnIssuer.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(notAnIssuer.address() as AddressInfo).port}`;
      const bad = await runCli(["mcp", KITCHEN, "--http", "--port", "0", "--oauth-issuer", url, "--oauth-audience", audience, "--data-dir", join(tmp, "data-bad-issuer")]);
      expect(bad.code).toBe(2);
      const lines = bad.stderr.trim().split("\n").filter((line) => line.startsWith("steamharness:"));
      expect(lines).toEqual([`steamharness: [mcp] ${url} does not publish OAuth authorization server metadata (RFC 8414 / OpenID discovery): issuer: expected string, received number; authorization_endpoint missing; token_endpoint missing; response_types_supported missing; is --oauth-issuer the authorization server's issuer URL?`]);
      expect(bad.stderr).not.toContain('"code": "invalid_type"');
    } finally {
      notAnIssuer.close();
    }
  });
});
