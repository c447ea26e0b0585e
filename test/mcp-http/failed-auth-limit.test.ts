// TEN-7: `steamharness mcp --http --keys` and `--auth-token-file` limit failed authentications per
// client address (429 with Retry-After) with the same limiter as the gateway and the configuration
// server, and a valid secret is checked before the limit, so bad ones from one address never lock
// out a good one.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, runCli, tempDir, writeProject } from "../cli/helpers.js";
import { INITIALIZE, rawPost, startHttpMcp, type HttpMcpServer } from "./helpers.js";

const ACCEPT = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("TEN-7 mcp --http failed-auth limit", () => {
  let tmp = "";
  let server: HttpMcpServer | undefined;
  let tokenServer: HttpMcpServer | undefined;
  let key = "";
  const token = "static-token-0123456789abcdef0123456789";
  beforeAll(async () => {
    tmp = await tempDir("sh-mcp-failed-auth-");
    const store = join(tmp, "keys");
    const project = await writeProject(join(tmp, "project"), {
      "package.json": JSON.stringify({ name: "limit", version: "1.0.0", type: "module", id: "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", projectType: "workflow", main: "workflow.mjs" }),
      "workflow.mjs": `export default { entrypoints: { quick: { title: "Quick", description: "Answers", run: () => ({ ok: true }) } } };\n`,
    });
    const added = await runCli(["gateway", "keys", "add", "--tenant", "acme", "--store", store]);
    expect(added.code).toBe(0);
    key = /^(sh_[A-Za-z0-9_-]{43})$/m.exec(added.stdout)![1]!;
    server = await startHttpMcp(project, ["--keys", "--store", store, "--data-dir", join(tmp, "data")]);
    writeFileSync(join(tmp, "token"), token);
    tokenServer = await startHttpMcp(project, ["--auth-token-file", join(tmp, "token"), "--data-dir", join(tmp, "token-data")]);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await tokenServer?.stop();
    await cleanup(tmp);
  });

  it("TEN-7: after 30 failed authentications an address gets 429 + Retry-After, and a valid key is still served", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await rawPost(server!.url, { ...ACCEPT, authorization: `Bearer sh_wrong${i}` }, INITIALIZE)).status);
    expect(statuses.slice(0, 30)).toEqual(new Array(30).fill(401));
    expect(statuses[30]).toBe(429);
    const limited = await rawPost(server!.url, ACCEPT, INITIALIZE);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    const served = await rawPost(server!.url, { ...ACCEPT, authorization: `Bearer ${key}` }, INITIALIZE);
    expect(served.status).toBe(200);
    expect(served.body).toContain('"serverInfo"');
  }, 60_000);

  it("TEN-7: with --auth-token-file, 30 wrong tokens from an address → 429 + Retry-After, and the right token is still served", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await rawPost(tokenServer!.url, { ...ACCEPT, authorization: `Bearer wrong-token-${i}` }, INITIALIZE)).status);
    expect(statuses.slice(0, 30)).toEqual(new Array(30).fill(401));
    expect(statuses[30]).toBe(429);
    expect(Number((await rawPost(tokenServer!.url, ACCEPT, INITIALIZE)).headers["retry-after"])).toBeGreaterThan(0);
    const served = await rawPost(tokenServer!.url, { ...ACCEPT, authorization: `Bearer ${token}` }, INITIALIZE);
    expect(served.status).toBe(200);
    expect(served.body).toContain('"serverInfo"');
  }, 60_000);
});
