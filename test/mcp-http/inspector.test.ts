// MCP-17, MCP-18: the MCP Inspector (2.12, the project's own reference client, written apart from
// our code) lists and calls a workflow project's tools over both revisions: 2026-07-28 without a
// session (`--protocol-era modern`) and 2025-11-25 with one over HTTP (`legacy`); over stdio see
// test/cli/inspector.test.ts.
// The Inspector declares Node >= 22.19; its CLI mode runs on the Node 20 these tests use (npm
// prints EBADENGINE only), which is what this test keeps true.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFile } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { cleanup, KITCHEN, tempDir } from "../cli/helpers.js";
import { startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(120_000);

const INSPECTOR = join(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json")), "clients/launcher/build/index.js");

let tmp: string;
let host: HttpMcpServer;
let proxy: Server;
let proxyUrl: URL;
/** The `MCP-Protocol-Version` and `Mcp-Session-Id` of each request the Inspector sent through the proxy. */
const seen: { version: string | undefined; session: string | undefined }[] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-inspector-");
  host = await startHttpMcp(KITCHEN, ["--data-dir", join(tmp, "data"), "--workers", "1"]);
  // A loopback proxy in front of the host records what the Inspector sends (so the era is seen on the wire, not assumed).
  proxy = createServer((req, res) => {
    seen.push({ version: req.headers["mcp-protocol-version"] as string | undefined, session: req.headers["mcp-session-id"] as string | undefined });
    const forward = request(new URL(req.url ?? "/", host.url), { method: req.method, headers: { ...req.headers, host: host.url.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}${host.url.pathname}`);
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  await host?.stop();
  await cleanup(tmp);
});

/** Runs the Inspector's CLI mode with `args` and returns the `result` of its one JSON line. */
async function inspect(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, [INSPECTOR, "--cli", ...args, "--format", "json", "--quiet"], {
    cwd: tmp,
    encoding: "utf8",
    timeout: 90_000,
    env: { ...process.env, HOME: tmp, NO_COLOR: "1" },
  });
  return (JSON.parse(stdout) as { result: Record<string, unknown> }).result;
}

const CALL = ["--method", "tools/call", "--tool-name", "echo", "--tool-args-json", JSON.stringify({ text: "inspected", count: 2 })];

describe("MCP-17 MCP-18 the MCP Inspector as an independent client", () => {
  for (const era of ["modern", "legacy"] as const) {
    it(`MCP-17 MCP-18 over HTTP (--protocol-era ${era}) the Inspector lists the project's tools and calls one`, async () => {
      seen.length = 0;
      const listed = await inspect([proxyUrl.href, "--transport", "http", "--protocol-era", era, "--method", "tools/list"]);
      expect((listed.tools as { name: string }[]).map((tool) => tool.name)).toContain("echo");
      const called = await inspect([proxyUrl.href, "--transport", "http", "--protocol-era", era, ...CALL]);
      expect(called.isError ?? false).toBe(false);
      expect(called.structuredContent).toMatchObject({ status: "success", entrypointId: "echo", output: { params: { text: "inspected", count: 2 } } });
      // modern: every request names 2026-07-28 and none carries a session; legacy: a 2025-11-25 session.
      if (era === "modern") expect(seen.every((one) => one.version === "2026-07-28" && one.session === undefined)).toBe(true);
      else expect(seen.some((one) => one.version === "2025-11-25" && one.session !== undefined)).toBe(true);
      expect(seen.length).toBeGreaterThanOrEqual(2);
    });
  }
});
