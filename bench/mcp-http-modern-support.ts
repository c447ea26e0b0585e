/**
 * What bench/mcp-http.bench.ts needs for the 2026-07-28 revision (issue 48, MCP-17): a bare
 * server of the SDK's v2 line (the low-level `Server`, one tool answering at once, served
 * statelessly through `createMcpHandler` on node:http), v2 clients pinned to the revision (no
 * `initialize`, no session), and a round-robin HTTP proxy that sends every request to the next of
 * its hosts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export const MODERN = "2026-07-28";

/**
 * Source of the bare v2 server: a fresh low-level `Server` with one tool (`ping`, answering at
 * once like the 2025-11-25 bare server's) per request, through the SDK's own stateless entry
 * (`createMcpHandler`, the 2025 leg stateless as by default), the web `Request`/`Response` it
 * speaks bridged to node:http the plain way.
 */
const BARE_V2_SERVER = `import { createServer } from "node:http";
import { Readable } from "node:stream";
import { Server, createMcpHandler } from "@modelcontextprotocol/server";
function newServer() {
  const server = new Server({ name: "bare-v2", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "ping", inputSchema: { type: "object", properties: {}, additionalProperties: false } }] }));
  server.setRequestHandler("tools/call", async () => ({ content: [{ type: "text", text: "pong" }], structuredContent: { pong: true } }));
  return server;
}
const handler = createMcpHandler(newServer);
const http = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const request = new Request("http://" + req.headers.host + req.url, { method: req.method, headers, ...(body ? { body } : {}) });
  const response = await handler.fetch(request, body ? { parsedBody: JSON.parse(body) } : {});
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) Readable.fromWeb(response.body).pipe(res);
  else res.end();
});
http.listen(0, "127.0.0.1", () => process.stderr.write("listening on http://127.0.0.1:" + http.address().port + "/mcp\\n"));
`;

/**
 * Writes the bare v2 server under `work`; returns its path (start it with `startListening`).
 *
 * @example
 * const bare = await startListening([writeBareV2Fixture(work)]);
 */
export function writeBareV2Fixture(work: string): string {
  mkdirSync(work, { recursive: true });
  const path = join(work, "bare-v2-http-server.mjs");
  writeFileSync(path, BARE_V2_SERVER);
  return path;
}

/**
 * A v2 client pinned to 2026-07-28 on `url`, connected (its `server/discover` probe answered).
 *
 * @example
 * const c = await modernClient(server.url);
 * await c.callTool({ name: "ping", arguments: {} });
 */
export async function modernClient(url: URL): Promise<Client> {
  const client = new Client({ name: "mcp-http-bench-modern", version: "0.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/**
 * Milliseconds of one `tools/call` of `ping` by a v2 client; throws when the call fails.
 *
 * @example
 * const ms = await timedModernCall(await modernClient(server.url));
 */
export async function timedModernCall(c: Client): Promise<number> {
  const began = performance.now();
  const result = await c.callTool({ name: "ping", arguments: {} });
  if (result.isError) throw new Error(`call failed: ${JSON.stringify(result)}`);
  return performance.now() - began;
}

/** A running {@link roundRobinProxy}. */
export interface RoundRobinProxy {
  /** The proxy's MCP endpoint (the hosts' path on the proxy's port). */
  url: URL;
  /** Requests the proxy could not forward (a host refused the connection or broke it). */
  errors: () => number;
  close: () => Promise<void>;
}

/**
 * An HTTP proxy on 127.0.0.1 sending each request to the next of `hosts` in turn (with two hosts,
 * every request goes to the other host than the one before), bodies streamed both ways.
 *
 * @example
 * const proxy = await roundRobinProxy([a.url, b.url]);
 * const c = await modernClient(proxy.url);
 */
export async function roundRobinProxy(hosts: URL[]): Promise<RoundRobinProxy> {
  let turn = 0;
  let errors = 0;
  const server: HttpServer = createServer((req, res) => {
    const host = hosts[turn++ % hosts.length]!;
    const upstream = httpRequest({ host: host.hostname, port: host.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => {
      errors++;
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(hosts[0]!.pathname, `http://127.0.0.1:${port}`),
    errors: () => errors,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
