// DX-9: what the chat banner says about the model and its key is what a turn does. A configured
// entry's key comes from the variable its apiKeyRef names: the banner says to set it, and a turn
// without it says the same (not "environment keys are never read"). The banner also lists the
// prompt commands, /compact among them. Real chat and config processes.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { addDefaultModels, CLI_SOURCE, cleanEnv } from "../cli/helpers.js";

const PROJECT = "test/conversation/fixtures/no-model-assistant";
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function cli(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = cleanEnv();
  delete env.OPENAI_API_KEY;
  return new Promise((resolveRun) => {
    const child = execFile(process.execPath, [...CLI_SOURCE, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolveRun({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

describe("DX-9 the chat banner tells the truth about the model", () => {
  it("DX-9 a configured entry without its key: the banner and the turn both say to set the variable apiKeyRef names; the banner lists /compact", async () => {
    const dir = await mkdtemp(join(tmpdir(), "chat-key-"));
    dirs.push(dir);
    const data = ["--data-dir", dir];
    const exported = join(dir, "config.json");
    expect((await cli(["config", "export", PROJECT, ...data, "-o", exported], "")).code).toBe(0);
    await addDefaultModels(exported, [{ id: "main", provider: "openai", model: "gpt-4.1-mini", apiKind: "openai-responses", apiKeyRef: "OPENAI_API_KEY", system: false }]);
    expect((await cli(["config", "import", PROJECT, exported, ...data], "")).code).toBe(0);

    const { code, stdout } = await cli(["chat", PROJECT, ...data, "--agent-store-dir", join(dir, "agents")], "hello\n/exit\n");
    expect(code).toBe(0);
    expect(stdout).toContain("  ⚠ no API key: set the environment variable OPENAI_API_KEY\n");
    expect(stdout).toContain("/compact [instructions] compacts the conversation · /exit ends the chat");
    const turn = stdout.split("you> hello\n")[1] ?? "";
    expect(turn).toContain('✗ error: model openai/gpt-4.1-mini (entry "main" of STEAMHARNESS_AGENT_MODELS) has no API key: set the environment variable OPENAI_API_KEY (its apiKeyRef)');
    expect(stdout).not.toMatch(/never read/);
  }, 120_000);
});
