// CFG-4: `steamharness chat --auth-dir <dir>` reads the configuration server login saved there by
// `steamharness login --auth-dir <dir>`, as `config`, `run` and `mcp` do: the chat's model then
// comes from the account's configuration on the server. Real server, login, config and chat processes.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { addDefaultModels, CLI_SOURCE, cleanEnv, runCli } from "../cli/helpers.js";
import { createAccount, type ServerProcess, useServerInTempDir } from "./server-process.js";

const PROJECT = "test/conversation/fixtures/no-model-assistant";

function chat(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = execFile(process.execPath, [...CLI_SOURCE, "chat", PROJECT, ...args], { env: cleanEnv(), timeout: 60_000 }, (error, stdout, stderr) =>
      resolveRun({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end("/exit\n");
  });
}

describe("CFG-4 chat reads the saved server login from --auth-dir", () => {
  let dir = "";
  let server: ServerProcess;
  useServerInTempDir("sh-chat-auth-", (started) => ({ dir, server } = started));

  it("CFG-4 chat --auth-dir uses the account's configuration on the server; without it the chat reads the local store", async () => {
    const account = await createAccount(server.url, "chat-account");
    const authDir = join(dir, "auth");
    const dataDir = join(dir, "data");
    expect((await runCli(["login", "--server", server.url, "--token", account.token, "--auth-dir", authDir])).code).toBe(0);
    const exported = join(dir, "config.json");
    expect((await runCli(["config", "export", PROJECT, "--data-dir", dataDir, "--auth-dir", authDir, "-o", exported])).code).toBe(0);
    await addDefaultModels(exported, [{ id: "main", provider: "openai", model: "gpt-4.1-on-the-server", apiKind: "openai-responses", apiKeyRef: "OPENAI_API_KEY", system: false }]);
    const imported = await runCli(["config", "import", PROJECT, exported, "--data-dir", dataDir, "--auth-dir", authDir]);
    // DX-13: the one stderr line names the store written: the server, through the saved login.
    expect(imported.code).toBe(0);
    expect(imported.stderr).toMatch(/^\[steamharness\] configuration store: server http:\/\/127\.0\.0\.1:\d+ as account chat-account \(saved login .*workflow-auth\.json\)\n$/);

    const agents = ["--agent-store-dir", join(dir, "agents")];
    const viaServer = await chat(["--data-dir", dataDir, "--auth-dir", authDir, ...agents]);
    expect(viaServer.code).toBe(0);
    expect(viaServer.stdout).toContain("gpt-4.1-on-the-server");
    // The login lives in authDir, not in the data dir: without the flag the local store (empty) is read.
    const local = await chat(["--data-dir", dataDir, ...agents]);
    expect(local.code).toBe(0);
    expect(local.stdout).not.toContain("gpt-4.1-on-the-server");
  }, 180_000);
});
