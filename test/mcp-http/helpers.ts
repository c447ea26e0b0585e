// Helpers of the MCP-over-HTTP tests: a real `steamharness mcp --http` child process, the SDK's
// real Streamable HTTP client, and raw HTTP requests for the header checks.
import { spawn, type ChildProcess } from "node:child_process";
import { rawHttp, type RawAnswer } from "../fixtures/raw-http.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, type StreamableHTTPClientTransportOptions } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { CLI_SOURCE, cleanEnv, REPO } from "../cli/helpers.js";

export interface HttpMcpServer {
  url: URL;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then waits for the exit code. */
  stop: () => Promise<number | null>;
}

/** Starts `steamharness mcp <dir> --http --port 0 ...args` (the CLI `options.cli`, default the build when fresh) and resolves with the URL it prints on stderr. */
export function startHttpMcp(projectDir: string, args: string[], options: { env?: Record<string, string>; cli?: readonly string[] } = {}): Promise<HttpMcpServer> {
  const child = spawn(process.execPath, [...(options.cli ?? CLI_SOURCE), "mcp", projectDir, "--http", "--port", "0", ...args], { cwd: REPO, env: options.env ?? cleanEnv(), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed in time; stderr: ${stderr}`)), 60_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = stderr.match(/listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: new URL(match[1]!),
          child,
          stderr: () => stderr,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}

/** An SDK client connected over Streamable HTTP. */
export async function connectHttp(url: URL, options: { capabilities?: ClientCapabilities; transport?: StreamableHTTPClientTransportOptions } = {}): Promise<Client> {
  const client = new Client({ name: "steamharness-http-test", version: "1.0.0" }, { capabilities: options.capabilities ?? {} });
  await client.connect(new StreamableHTTPClientTransport(url, options.transport));
  return client;
}

/** An SDK client sending `secret` as its bearer key; `seen` collects the status and Retry-After of every HTTP answer. */
export async function connectWithKey(url: URL, secret: string, seen: { status: number; retryAfter: string | null }[] = []): Promise<Client> {
  const fetchSpy: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    seen.push({ status: response.status, retryAfter: response.headers.get("retry-after") });
    return response;
  };
  return connectHttp(url, { transport: { requestInit: { headers: { authorization: `Bearer ${secret}` } }, fetch: fetchSpy } });
}

/** A raw POST with exactly these headers (node:http lets a test set Host), answering status, headers and body. */
export function rawPost(url: URL, headers: Record<string, string>, body: unknown): Promise<RawAnswer> {
  return rawHttp(url, "POST", headers, body);
}

/** An initialize request body. */
export const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
