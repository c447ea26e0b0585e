import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { cleanEnv, cleanup, CLI_SOURCE, REPO, runCli, tempDir } from "../cli/helpers.js";
import { spawnGovernedGateway } from "./helpers.js";
import { bundledProject } from "../fixtures/bundled-fixture.js";

// The conversation project (TypeScript importing our sources) is bundled once (bundledProject), so
// the gateway process loads plain JavaScript instead of compiling the sources through tsx.
const PROJECT_SOURCE = "test/conversation/fixtures/chat-assistant";

/** The status of a GET with a chosen Host header. */
const statusWithHost = (url: string, token: string, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { authorization: `Bearer ${token}`, host } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    request.on("error", reject);
    request.end();
  });

describe("GW-1 steamharness gateway (CLI)", () => {
  it("GW-1 GW-4 SEC-7 serves a conversation project on 127.0.0.1 with the token from --token-env, serves --allowed-host names, and stops cleanly on SIGTERM", async () => {
    const dataDir = await tempDir("sh-gateway-");
    const PROJECT = bundledProject(PROJECT_SOURCE, join(dataDir, "chat-assistant"));
    const token = "cli-token-0123456789abcdef";
    const child = spawn(process.execPath, [...CLI_SOURCE, "gateway", PROJECT, "--port", "0", "--token-env", "MY_GATEWAY_TOKEN", "--data-dir", dataDir, "--allowed-host", "gateway.example", "--allowed-host", "other.example"], {
      cwd: REPO,
      env: cleanEnv({ MY_GATEWAY_TOKEN: token, CHAT_TEST_WORKDIR: dataDir }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", () => {
          const found = /at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stderr);
          if (found) resolve(found[1]!);
        });
        child.once("exit", (code) => reject(new Error(`gateway exited (${code}): ${stderr}`)));
      });
      expect(stderr).toContain('model "chat-assistant"');
      expect(stderr).not.toContain(token);
      const client = new OpenAI({ baseURL: url, apiKey: token, maxRetries: 0 });
      const response = await client.responses.create({ model: "chat-assistant", input: "good morning" });
      expect(response.status).toBe("completed");
      expect(response.output_text).toMatch(/^Hello! You said: [\s\S]*good morning$/);
      await expect(new OpenAI({ baseURL: url, apiKey: "not-the-token-000000", maxRetries: 0 }).models.list()).rejects.toMatchObject({ status: 401 });
      expect(await statusWithHost(`${url}/models`, token, "gateway.example:8787")).toBe(200);
      expect(await statusWithHost(`${url}/models`, token, "other.example")).toBe(200);
      expect(await statusWithHost(`${url}/models`, token, "evil.example")).toBe(403);
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
      await cleanup(dataDir);
    }
  });

  it("GW-1 SEC-7 refuses a workflow folder, a short token and an --allowed-host that is not a host name, with the reason", async () => {
    const refused = await runCli(["gateway", join(REPO, "examples/workflow-project"), "--port", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/projectType "conversation"/);
    const PROJECT = join(REPO, PROJECT_SOURCE);
    const short = await runCli(["gateway", PROJECT, "--port", "0"], { env: cleanEnv({ STEAMHARNESS_GATEWAY_TOKEN: "short" }) });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/STEAMHARNESS_GATEWAY_TOKEN must hold at least 16/);
    const badHost = await runCli(["gateway", PROJECT, "--port", "0", "--allowed-host", "http://evil.example/"], { env: cleanEnv({ STEAMHARNESS_GATEWAY_TOKEN: "cli-token-0123456789abcdef" }) });
    expect(badHost.code).toBe(2);
    expect(badHost.stderr).toMatch(/allowed host 'http:\/\/evil\.example\/' is not a host name/);
  });

  it("GOV-1 GOV-7 gateway --approval-policy: a tool approval answered by a client goes through the governed store, the token's principal recorded as approver in the audit chain `audit export --store` reads; a bad policy file is a usage error", async () => {
    const dataDir = await tempDir("sh-gateway-gov-");
    try {
      const PROJECT = bundledProject(PROJECT_SOURCE, join(dataDir, "chat-assistant"));
      const policy = join(dataDir, "policy.json");
      writeFileSync(policy, JSON.stringify({ allowSelfApproval: true, rules: [] }));
      writeFileSync(join(dataDir, "bad-policy.json"), "{ not json");
      const bad = await runCli(["gateway", PROJECT, "--port", "0", "--data-dir", dataDir, "--approval-policy", join(dataDir, "bad-policy.json")], { env: cleanEnv({ STEAMHARNESS_GATEWAY_TOKEN: "cli-token-0123456789abcdef", CHAT_TEST_WORKDIR: dataDir }) });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("--approval-policy");

      const token = "cli-token-0123456789abcdef";
      const gateway = await spawnGovernedGateway(PROJECT, dataDir, policy, token);
      try {
        const url = gateway.url;
        const client = new OpenAI({ baseURL: url, apiKey: token, maxRetries: 0 });
        const paused = await client.responses.create({ model: "chat-assistant", input: "write a note" });
        const request = paused.output.find((item) => item.type === "mcp_approval_request") as { id: string } | undefined;
        expect(request).toBeDefined();
        const done = await client.responses.create({ model: "chat-assistant", previous_response_id: paused.id, input: [{ type: "mcp_approval_response", approval_request_id: request!.id, approve: true }] });
        expect(done.status).toBe("completed");
        expect(done.output_text).toContain("Done: write finished.");
        expect(await gateway.stop()).toBe(0);
        const chain = await gateway.auditChain();
        expect(chain.map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
        expect(chain[1]!.data).toMatchObject({ outcome: "approved", approver: { surface: "gateway", tenant: "token:static", subject: "static" } });
      } finally {
        gateway.kill();
      }
    } finally {
      await cleanup(dataDir);
    }
  }, 120_000);
});
