import { describe, expect, it } from "@jest/globals";
import { resolveDataDirs } from "../../src/adapters/driven/worker-process/data-dirs.js";
import { resolveServerAuth, workerEnvironment } from "../../src/adapters/driven/config-server-client/server-auth.js";
import { dataDirDefaults, projectFiles } from "../../src/compose/workflow-runs.js";
import { secretValues } from "../../src/domain/redaction.js";
import { redact } from "../../src/adapters/driving/mcp/workflow-result.js";

describe("MCP-2 data dirs", () => {
  it("MCP-2 SES-10 defaults live under ~/.steamharness, agent sessions in the project's .workflow/agents", () => {
    expect(resolveDataDirs({}, { ...dataDirDefaults(), home: "/home/ada" }, "/work/project")).toEqual({
      dataDir: "/home/ada/.steamharness",
      fileStoreDir: "/home/ada/.steamharness/files",
      kvStoreDir: "/home/ada/.steamharness/kv",
      persistentValueStoreDir: "/home/ada/.steamharness/values",
      fileCreateStoreDir: "/home/ada/.steamharness/created",
      authDir: "/home/ada/.steamharness",
      agentStoreDir: "/work/project/.workflow/agents",
    });
  });

  it("MCP-2 each option overrides its dir; the rest follow --data-dir", () => {
    const dirs = resolveDataDirs({ dataDir: "/srv/sh", kvStoreDir: "/fast/kv", authDir: "/secure" }, { ...dataDirDefaults(), home: "/home/ada" });
    expect(dirs).toMatchObject({ dataDir: "/srv/sh", kvStoreDir: "/fast/kv", authDir: "/secure", fileStoreDir: "/srv/sh/files" });
  });

  it("MCP-2 ARCH-6 the project files' dataFolders: the session folder a command names is the layout's --agent-store-dir (its flag in errors), the project's .workflow/agents by default", () => {
    expect(projectFiles.dataFolders({ dataDir: "/srv/sh", sessionFolder: "/var/sessions" }, "/work/project")).toEqual({
      dirs: expect.objectContaining({ dataDir: "/srv/sh", kvStoreDir: "/srv/sh/kv", agentStoreDir: "/var/sessions" }),
      sessionFolder: "/var/sessions",
    });
    expect(projectFiles.dataFolders({ dataDir: "/srv/sh" }, "/work/project").sessionFolder).toBe("/work/project/.workflow/agents");
    expect(() => projectFiles.dataFolders({ sessionFolder: "rel/sessions" }, "/work/project")).toThrow("--agent-store-dir must be an absolute directory path");
  });

  it.each([["dataDir", "--data-dir"], ["fileStoreDir", "--file-store-dir"], ["authDir", "--auth-dir"]] as const)("MCP-2 a relative %s is refused", (key, flag) => {
    expect(() => resolveDataDirs({ [key]: "rel/dir" }, dataDirDefaults())).toThrow(`${flag} must be an absolute directory path`);
    expect(() => resolveDataDirs({ [key]: "" }, dataDirDefaults())).toThrow(flag);
  });
});

describe("MCP-2 server login precedence", () => {
  const saved = { serverUrl: "https://saved", adminKey: "saved-key" };

  it("MCP-2 process environment beats .env beats saved auth, URL and key as a pair", () => {
    expect(resolveServerAuth({ STEAMHARNESS_SERVER_URL: "https://env" }, { STEAMHARNESS_SERVER_ADMIN_KEY: "dotenv-key" }, saved)).toEqual({
      source: "environment",
      serverUrl: "https://env",
    });
    expect(resolveServerAuth({}, { STEAMHARNESS_SERVER_URL: "https://dotenv", STEAMHARNESS_SERVER_ADMIN_KEY: "k" }, saved)).toEqual({
      source: "project-env",
      serverUrl: "https://dotenv",
      adminKey: "k",
    });
    expect(resolveServerAuth({}, {}, saved)).toEqual({ source: "saved", ...saved });
    expect(resolveServerAuth({}, {}, null)).toEqual({ source: "none" });
  });

  it("MCP-2 the worker sees .env under explicit variables and only the resolved login", () => {
    const env = workerEnvironment(
      { PATH: "/bin", SHARED: "explicit", STEAMHARNESS_SERVER_ADMIN_KEY: "stale" },
      { SHARED: "dotenv", ONLY_DOTENV: "1" },
      { source: "saved", serverUrl: "https://saved" },
    );
    expect(env).toEqual({ PATH: "/bin", SHARED: "explicit", ONLY_DOTENV: "1", STEAMHARNESS_SERVER_URL: "https://saved" });
  });
});

describe("MCP-7 redaction", () => {
  it("MCP-7 secret-looking variables are redacted and messages clipped", () => {
    const secrets = secretValues({ OPENAI_API_KEY: "sk-abcdefgh", GITHUB_TOKEN: "ghp_123456789", HOME: "/root/home-dir", SHORT_KEY: "abc" });
    expect(secrets).toEqual(["ghp_123456789", "sk-abcdefgh"]);
    expect(redact("failed with sk-abcdefgh and ghp_123456789", secrets)).toBe("failed with [redacted] and [redacted]");
    expect(redact("x".repeat(1000), [])).toHaveLength(300);
    expect(redact("line one\n    at stack (file.js:1)", [])).toBe("line one at stack (file.js:1)");
  });
});
