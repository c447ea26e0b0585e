import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CLI_SOURCE, cleanEnv, cleanup, EXAMPLE, REPO, tempDir } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(120_000);

// The MCP Inspector's headless CLI is an independent MCP client (item 9 of the MCP issue).
// It is a devDependency of the repo; MCP_INSPECTOR_BIN may point at another install.
const INSPECTOR = process.env.MCP_INSPECTOR_BIN ?? join(REPO, "node_modules/.bin/mcp-inspector");
const inspectorIt = existsSync(INSPECTOR) ? it : it.skip;

let tmp: string;
beforeAll(async () => {
  tmp = await tempDir("sh-inspector-");
});
afterAll(async () => {
  await cleanup(tmp);
});

function inspect(args: string[]): Promise<Record<string, unknown>> {
  const server = [process.execPath, ...CLI_SOURCE, "mcp", EXAMPLE, "--data-dir", join(tmp, "data")];
  return new Promise((resolveRun, reject) => {
    execFile(INSPECTOR, ["--cli", ...server, ...args], { cwd: REPO, env: cleanEnv(), timeout: 90_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`mcp-inspector failed: ${error.message}\n${stderr}`));
      // The inspector may print a banner first; the answer is the JSON document after it.
      const start = stdout.indexOf("{");
      resolveRun(JSON.parse(stdout.slice(start)) as Record<string, unknown>);
    });
  });
}

describe("MCP Inspector CLI drives steamharness mcp", () => {
  inspectorIt("MCP-1 tools/list through mcp-inspector --cli (skipped when @modelcontextprotocol/inspector is not installed)", async () => {
    const listed = (await inspect(["--method", "tools/list"])) as { tools: Array<{ name: string; title: string }> };
    expect(listed.tools.map((tool) => [tool.name, tool.title])).toEqual([
      ["greet", "Greet"],
      ["remember_topic", "Remember a topic"],
      ["plan_trip", "Plan a trip"],
    ]);
  });

  inspectorIt("MCP-7 tools/call through mcp-inspector --cli (skipped when @modelcontextprotocol/inspector is not installed)", async () => {
    const result = await inspect(["--method", "tools/call", "--tool-name", "greet", "--tool-arg", "name=Inspector"]);
    expect(result.structuredContent).toMatchObject({ status: "success", entrypointId: "greet", entrypointTitle: "Greet", output: { greeting: "Hello, Inspector!" } });
    expect(result.isError).toBeUndefined();
  });
});
