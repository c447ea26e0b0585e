// TEN-7: `run`, `chat` and `mcp` with a configuration server URL but no credential stop before
// anything runs: exit 2 and one line on stderr (no stack trace, no failed run), the built CLI.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { CLI_DIST, cleanEnv, cleanup, EXAMPLE, REPO, runCli, tempDir } from "../cli/helpers.js";

const CONVERSATION = join(REPO, "test/conversation/fixtures/no-model-assistant");
// Nothing listens there: the command must stop on the missing credential, not on the network.
const env = cleanEnv({ STEAMHARNESS_SERVER_URL: "http://127.0.0.1:9" });

describe("TEN-7 a server URL without a credential is a usage error", () => {
  let dataDir = "";
  beforeAll(async () => void (dataDir = await tempDir("sh-ten7-nocred-")));
  afterAll(() => cleanup(dataDir));
  it.each([
    ["run", ["run", EXAMPLE, "greet", "--params", '{"name":"Ada"}']],
    ["chat", ["chat", CONVERSATION]],
    ["mcp", ["mcp", EXAMPLE]],
    ["mcp --http", ["mcp", EXAMPLE, "--http", "--port", "0"]],
  ])("TEN-7: `%s` exits 2 with one line naming the missing credential", async (_name, args) => {
    const { code, stdout, stderr } = await runCli([...args, "--data-dir", dataDir], { env, argsPrefix: [CLI_DIST] });
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^steamharness: \[config-server-client\] the configuration server http:\/\/127\.0\.0\.1:9 is chosen \(environment\) but no credential is: set STEAMHARNESS_SERVER_TOKEN/);
    expect(stderr).not.toContain("    at ");
    expect(stdout).not.toContain("failed");
  }, 90_000);
});
