// CFG-4, seed 001 "系统订阅由当前账号重新鉴权，第三方条目直接使用保存的连接": `steamharness chat`
// on the configuration server (real server process, real chat process, a loopback OpenAI
// Responses server) calls a system model entry with the current account's credential — not
// the key its saved `apiKeyRef` names — and a third-party entry with its saved connection.
// TEN-7: that credential is the account's model-call credential, never the account token (which
// can rewrite every configuration of the account); it cannot read or write configurations.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { cleanEnv, CLI_SOURCE, REPO, writeProject } from "../cli/helpers.js";
import { startOpenAIResponsesServer } from "../fixtures/loopback-openai-responses.js";
import { ADMIN_KEY, createAccount, request, type ServerProcess, useServerInTempDir } from "./server-process.js";

const SAVED_KEY = "sk-saved-connection-key";

describe("CFG-4 system model entries are re-authenticated by the current account", () => {
  let root = "";
  let server: ServerProcess;
  useServerInTempDir("sh-cfg-system-", (started) => ({ dir: root, server } = started));

  async function chatOnce(system: boolean, accountName: string): Promise<{ code: number; stdout: string; authorization: string[]; token: string; credential: string }> {
    const account = await createAccount(server.url, accountName);
    const issued = await request(server.url, "GET", "/v1/account/model-credential", { authorization: `Bearer ${account.token}` });
    expect(issued.status).toBe(200);
    const credential = issued.body.credential as string;
    const fixture = join(REPO, "test/conversation/fixtures/no-model-assistant");
    const dir = await writeProject(join(root, accountName), {
      "package.json": readFileSync(join(fixture, "package.json"), "utf8"),
      "conversation.mjs": readFileSync(join(fixture, "conversation.mjs"), "utf8"),
    });
    const projectId = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).id as string;
    // The model accepts only the credential this case expects.
    const model = await startOpenAIResponsesServer({ apiKey: system ? credential : SAVED_KEY, replies: [{ text: "Hello from the model.", usage: { input: 5, output: 4 } }] });
    try {
      const store = createHttpProjectConfigurationStore({ url: server.url, credential: { token: account.token } });
      const entry = { id: "main", provider: "openai", model: "loopback-model", apiKind: "openai-responses", baseUrl: model.baseUrl, apiKeyRef: "LOOPBACK_KEY", system };
      await store.create(projectId, { configurationId: "default", name: "Default", values: { STEAMHARNESS_AGENT_MODELS: [entry] } });
      const env = cleanEnv({ STEAMHARNESS_SERVER_URL: server.url, STEAMHARNESS_SERVER_TOKEN: account.token, LOOPBACK_KEY: SAVED_KEY });
      const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
        const child = execFile(process.execPath, [...CLI_SOURCE, "chat", dir, "--data-dir", join(root, `data-${accountName}`)], { cwd: REPO, env, timeout: 90_000 }, (error, out) =>
          resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout: out }),
        );
        child.stdin?.end("Hi\n/exit\n");
      });
      return { code, stdout, authorization: model.requests.map((recorded) => String(recorded.headers.authorization)), token: account.token, credential };
    } finally {
      await model.close();
    }
  }

  it("CFG-4 TEN-7: a system entry is called with the account's model-call credential — never the account token, never the saved apiKeyRef's key", async () => {
    const { code, stdout, authorization, token, credential } = await chatOnce(true, "system-user");
    expect(code).toBe(0);
    expect(stdout).toContain("Hello from the model.");
    expect(authorization).toEqual([`Bearer ${credential}`]);
    expect(credential).toMatch(/^shm_/);
    expect(authorization[0]).not.toContain(token);
    expect(authorization[0]).not.toContain(token.slice(4));
    expect(authorization[0]).not.toContain(SAVED_KEY);
    // What the model endpoint received cannot read or write configurations (403), nor manage the account…
    const as = { authorization: authorization[0]! };
    const read = await request(server.url, "GET", "/v1/projects/any-project", as);
    expect(read.status).toBe(403);
    expect(read.body.error.message).toContain("model-call credential");
    expect((await request(server.url, "PUT", "/v1/projects/any-project/fields", as, { fields: [], expectedRevision: 0 })).status).toBe(403);
    expect((await request(server.url, "POST", "/v1/account/token", as)).status).toBe(403);
    expect((await request(server.url, "GET", "/v1/account/model-credential", as)).status).toBe(403);
    // …but a model endpoint can ask the server whose it is.
    const verified = await request(server.url, "GET", "/v1/model-credential", as);
    expect(verified.status).toBe(200);
    expect(verified.body.account.name).toBe("system-user");
    // The account token is no model-call credential, and rotating the token retires the old one.
    expect((await request(server.url, "GET", "/v1/model-credential", { authorization: `Bearer ${token}` })).status).toBe(401);
    const rotated = await request(server.url, "POST", "/v1/account/token", { authorization: `Bearer ${ADMIN_KEY}`, "x-steamharness-account": "system-user" });
    expect(rotated.status).toBe(200);
    expect((await request(server.url, "GET", "/v1/model-credential", as)).status).toBe(401);
  }, 180_000);

  it("CFG-4 a third-party entry keeps its saved connection (the apiKeyRef's key)", async () => {
    const { code, stdout, authorization } = await chatOnce(false, "third-party-user");
    expect(code).toBe(0);
    expect(stdout).toContain("Hello from the model.");
    expect(authorization).toEqual([`Bearer ${SAVED_KEY}`]);
  }, 180_000);
});
