import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { HOST_BRIDGE_TOKEN_ENV as TOKEN_ENV, HOST_BRIDGE_URL_ENV as URL_ENV } from "../../src/domain/capabilities/host-bridge.js";
import {
  createProjectCapabilityServer,
  isProjectCapabilityAvailable,
  listProjectCapabilityToolIds,
  runProjectCapabilityAction,
} from "../../src/app/capabilities/project-capabilities.js";
import { createHttpHostBridge } from "../../src/adapters/driven/host-bridge-client/http-host-bridge.js";
import { connectInProcess, fixture, mcpCall, nativeError } from "./support.js";

interface Recorded {
  method: string;
  url: string;
  authorization?: string;
  body: unknown;
}

// A stand-in for the host bridge: records every request and answers per path and body.
async function startRecorder(host: string, respond?: (req: Recorded) => { status: number; body?: unknown; headers?: Record<string, string> }) {
  const requests: Recorded[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const record: Recorded = { method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body: raw ? JSON.parse(raw) : null };
    requests.push(record);
    const answer = respond?.(record) ?? { status: 200, body: { configurations: [{ configurationId: "c1", revision: 3 }], currentConfigurationId: "c1" } };
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return { requests, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const TOKEN = "bridge-token-0123456789";
const GET = { action: "get_configurations" };

describe("CAP-8 host configuration through the loopback bridge", () => {
  let bridge: Awaited<ReturnType<typeof startRecorder>>;
  let ipv6: Awaited<ReturnType<typeof startRecorder>> | undefined;
  beforeAll(async () => {
    bridge = await startRecorder("127.0.0.1", (req) => {
      if (req.url === "/v1/configurations/manage" && (req.body as any).revision === 0) return { status: 409, body: { error: { code: "conflict", message: "revision 0 is stale; current is 3" } } };
      if (req.url === "/v1/configurations/manage" && (req.body as any).revision === 401) return { status: 401, body: "nope" };
      if (req.url === "/v1/configurations/manage" && (req.body as any).revision === 302) return { status: 302, headers: { location: `http://127.0.0.1:${bridge.port}/elsewhere` } };
      if (req.url === "/v1/configurations/manage" && (req.body as any).revision === 500) return { status: 500, body: "<html>oops</html>" };
      return undefined as any;
    });
    // [::1] must not reach the token either; listen there too when the machine has IPv6.
    ipv6 = await startRecorder("::1").catch(() => undefined);
  });
  afterAll(async () => {
    await bridge.close();
    await ipv6?.close();
  });
  beforeEach(() => {
    bridge.requests.length = 0;
    ipv6?.requests.splice(0);
  });

  const envFor = (url: string | undefined, token: string | undefined) => ({
    ...(url === undefined ? {} : { [URL_ENV]: url }),
    ...(token === undefined ? {} : { [TOKEN_ENV]: token }),
  });

  it("CAP-8 with a valid bridge the tool is exposed and every call carries the bearer token to 127.0.0.1 only", async () => {
    for (const url of [`http://127.0.0.1:${bridge.port}`, `http://127.0.0.1:${bridge.port}/`]) {
      const env = envFor(url, TOKEN);
      expect(isProjectCapabilityAvailable(IDS.hostConfiguration, { env })).toBe(true);
      expect(listProjectCapabilityToolIds({ env })).toContain(IDS.hostConfiguration);
      const fx = await fixture({ env });
      const result = await fx.tool(IDS.hostConfiguration).execute("t", { action: "get_configurations", projectId: "p" });
      expect((result.details as any).result).toEqual({ configurations: [{ configurationId: "c1", revision: 3 }], currentConfigurationId: "c1" });
    }
    expect(bridge.requests).toEqual([
      { method: "POST", url: "/v1/configurations/get", authorization: `Bearer ${TOKEN}`, body: { projectId: "p" } },
      { method: "POST", url: "/v1/configurations/get", authorization: `Bearer ${TOKEN}`, body: { projectId: "p" } },
    ]);
  });

  it("CAP-8 manage_configurations sends explicit location, project, id and revision; bridge errors map to codes", async () => {
    const env = envFor(`http://127.0.0.1:${bridge.port}`, TOKEN);
    const fx = await fixture({ env });
    const tool = fx.tool(IDS.hostConfiguration);
    const manage = { action: "manage_configurations", operation: "update", storageLocation: "local", projectId: "p", configurationId: "c1", values: { title: "Roadmap" } };
    await tool.execute("t", { ...manage, revision: 3 });
    expect(bridge.requests.at(-1)).toEqual({
      method: "POST",
      url: "/v1/configurations/manage",
      authorization: `Bearer ${TOKEN}`,
      body: { operation: "update", storageLocation: "local", projectId: "p", configurationId: "c1", revision: 3, values: { title: "Roadmap" } },
    });
    expect(await nativeError(tool.execute("t", { ...manage, revision: 0 }))).toMatchObject({ code: "conflict", message: "revision 0 is stale; current is 3" });
    expect(await nativeError(tool.execute("t", { ...manage, revision: 401 }))).toMatchObject({ code: "unavailable" });
    expect(await nativeError(tool.execute("t", { ...manage, revision: 500 }))).toMatchObject({ code: "unavailable" });
    // A redirect is never followed (it could carry the bearer header away).
    const before = bridge.requests.length;
    expect(await nativeError(tool.execute("t", { ...manage, revision: 302 }))).toMatchObject({ code: "unavailable" });
    expect(bridge.requests.length).toBe(before + 1);
    // Missing explicit fields are refused before any request.
    bridge.requests.length = 0;
    for (const field of ["storageLocation", "projectId", "configurationId", "revision", "operation"]) {
      const { [field]: _omit, ...args } = { ...manage, revision: 3 } as Record<string, unknown>;
      expect(await nativeError(tool.execute("t", args))).toMatchObject({ code: "input_validation", field });
    }
    expect(await nativeError(tool.execute("t", { ...manage, operation: "delete", revision: 3 }))).toMatchObject({ field: "values" });
    expect(bridge.requests).toEqual([]);
  });

  it("CAP-8 over MCP the server answers as workflow-host / project_configurations", async () => {
    const env = envFor(`http://127.0.0.1:${bridge.port}`, TOKEN);
    const fx = await fixture({ env });
    const client = await connectInProcess(IDS.hostConfiguration, fx.context, { env });
    expect(client.getServerVersion()?.name).toBe("workflow-host");
    expect((await mcpCall(client, "project_configurations", GET)).structured.result.currentConfigurationId).toBe("c1");
    await client.close();
  });

  // The tricky-URL corpus: none of these may receive the token, and each hides only this tool.
  const trickyUrls = (port: number): Array<[string, string | undefined, string | undefined]> => [
    ["https", `https://127.0.0.1:${port}`, TOKEN],
    ["userinfo user:pass", `http://user:pass@127.0.0.1:${port}`, TOKEN],
    ["userinfo user", `http://user@127.0.0.1:${port}`, TOKEN],
    ["suffix domain", `http://127.0.0.1.evil.test:${port}`, TOKEN],
    ["localhost", `http://localhost:${port}`, TOKEN],
    ["[::1]", `http://[::1]:${port}`, TOKEN],
    ["127.1", `http://127.1:${port}`, TOKEN],
    ["hex 0x7f000001", `http://0x7f000001:${port}`, TOKEN],
    ["decimal 2130706433", `http://2130706433:${port}`, TOKEN],
    ["octal-ish 127.000.000.001", `http://127.000.000.001:${port}`, TOKEN],
    ["trailing dot", `http://127.0.0.1.:${port}`, TOKEN],
    ["percent-encoded host", `http://%31%32%37.0.0.1:${port}`, TOKEN],
    ["encoded dot to evil", `http://127.0.0.1%2eevil.test:${port}`, TOKEN],
    ["upper-case scheme", `HTTP://127.0.0.1:${port}`, TOKEN],
    ["path", `http://127.0.0.1:${port}/bridge`, TOKEN],
    ["query", `http://127.0.0.1:${port}?x=1`, TOKEN],
    ["fragment", `http://127.0.0.1:${port}#x`, TOKEN],
    ["leading space", ` http://127.0.0.1:${port}`, TOKEN],
    ["trailing newline", `http://127.0.0.1:${port}\n`, TOKEN],
    ["other loopback 127.0.0.2", `http://127.0.0.2:${port}`, TOKEN],
    ["0.0.0.0", `http://0.0.0.0:${port}`, TOKEN],
    ["port 0", "http://127.0.0.1:0", TOKEN],
    ["port 65536", "http://127.0.0.1:65536", TOKEN],
    ["leading-zero port", `http://127.0.0.1:0${port}`, TOKEN],
    ["@ after port", `http://127.0.0.1:${port}@evil.test`, TOKEN],
    ["fragment trick", `http://evil.test#@127.0.0.1:${port}`, TOKEN],
    ["backslash", `http://127.0.0.1:${port}\\@evil.test`, TOKEN],
    ["ws scheme", `ws://127.0.0.1:${port}`, TOKEN],
    ["single slash", `http:/127.0.0.1:${port}`, TOKEN],
    ["missing token", `http://127.0.0.1:${port}`, undefined],
    ["empty token", `http://127.0.0.1:${port}`, ""],
    ["token with CRLF", `http://127.0.0.1:${port}`, "abc\r\nX-Evil: 1"],
    ["missing URL", undefined, TOKEN],
    ["empty URL", "", TOKEN],
  ];

  it("CAP-8 a corpus of tricky URLs: the token never leaves, only this capability is hidden, calling it throws the reason", async () => {
    const corpus = trickyUrls(bridge.port);
    expect(corpus.length).toBeGreaterThanOrEqual(20);
    for (const [name, url, token] of corpus) {
      const env = envFor(url, token);
      expect([name, isProjectCapabilityAvailable(IDS.hostConfiguration, { env })]).toEqual([name, false]);
      expect([name, listProjectCapabilityToolIds({ env, globalMemory: true })]).toEqual([name, [IDS.knowledge, IDS.kv, IDS.memory, IDS.presentCard]]);
      const fx = await fixture({ env });
      expect(fx.tools.map((t) => t.name)).not.toContain(IDS.hostConfiguration);
      await fx.tool(IDS.kv).execute("t", { action: "set", key: "still", value: "works" });
      const error = await nativeError(runProjectCapabilityAction(IDS.hostConfiguration, fx.context, GET, { env }));
      expect([name, error.code]).toEqual([name, "unavailable"]);
      expect(error.message).toContain("host configuration is unavailable");
      if (token) expect(error.message).not.toContain(token);
      if (url?.includes("pass")) expect(error.message).not.toContain("pass@");
      await expect(createProjectCapabilityServer(IDS.hostConfiguration, { context: fx.context, env })).rejects.toMatchObject({ code: "unavailable" });
      // The HTTP adapter re-checks the address itself, so no other path can send the token there.
      if (url && token === TOKEN) expect(() => createHttpHostBridge({ url, token })).toThrow(/unavailable/);
    }
    expect(bridge.requests).toEqual([]);
    expect(ipv6?.requests ?? []).toEqual([]);
  });

  it("CAP-8 the reason names what is wrong", async () => {
    const fx = await fixture();
    const reason = async (env: Record<string, string>) => (await nativeError(runProjectCapabilityAction(IDS.hostConfiguration, fx.context, GET, { env }))).message;
    expect(await reason({})).toContain(`${URL_ENV} is not set`);
    expect(await reason({ [URL_ENV]: "http://127.0.0.1:1" })).toContain(`${TOKEN_ENV} is not set`);
    expect(await reason({ [URL_ENV]: "http://localhost:1", [TOKEN_ENV]: "t" })).toContain("must be exactly http://127.0.0.1[:port]");
    expect(await reason({ [URL_ENV]: "http://a:b@127.0.0.1:1", [TOKEN_ENV]: "t" })).toContain("must not contain credentials");
  });
});
