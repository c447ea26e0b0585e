/**
 * DX-12: the README's MCP client configuration and docs/mcp-http.md's `--http` line work when the
 * host starts them from an unrelated working directory. The recipes are read out of the docs, so
 * the docs cannot drift from what is tested; `npx` runs with `npm_config_offline` so a recipe that
 * would ask the registry fails here at once instead of reaching the network.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { cp, mkdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { cleanEnv, cleanup, DIST_IS_FRESH, EXAMPLE, REPO, tempDir, waitFor } from "./helpers.js";
import { fillPlaceholders, readmeMcpRecipes } from "./readme-recipes.js";

jest.setTimeout(120_000);

/** The one `sh` line of docs/mcp-http.md that passes `--prefix`. */
async function httpRecipe(): Promise<string> {
  const page = await readFile(join(REPO, "docs/mcp-http.md"), "utf8");
  const lines = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) => match[1]!.split("\n")).filter((line) => line.includes("npx --prefix"));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

let tmp: string;
let elsewhere: string;
let project: string;
let env: Record<string, string>;

beforeAll(async () => {
  tmp = await tempDir("sh-dx12-");
  elsewhere = join(tmp, "elsewhere");
  await mkdir(elsewhere);
  // A project that installed steamharness: node_modules/steamharness and its bin link, as npm lays them out.
  project = join(tmp, "my workflow");
  await cp(EXAMPLE, project, { recursive: true });
  await mkdir(join(project, "node_modules/.bin"), { recursive: true });
  await symlink(REPO, join(project, "node_modules/steamharness"));
  await symlink("../steamharness/dist/cli.js", join(project, "node_modules/.bin/steamharness"));
  env = cleanEnv({ HOME: join(tmp, "home"), npm_config_offline: "true", npm_config_update_notifier: "false" });
});
afterAll(() => cleanup(tmp));

async function greetThrough(transport: Transport): Promise<void> {
  const client = new Client({ name: "dx12", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("greet");
    const result = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent ?? result.content)).toContain("Hello, Ada!");
  } finally {
    await client.close();
  }
}

// The recipes start the built bin, as an installed package would.
(DIST_IS_FRESH ? describe : describe.skip)("DX-12 MCP client recipe from any working directory", () => {
  it("DX-12: the README's stdio recipe for a project with steamharness installed answers tools/call from an unrelated cwd", async () => {
    const [installed] = await readmeMcpRecipes(REPO);
    expect(installed!.args).toContain("--prefix");
    const args = installed!.args.map((arg) => fillPlaceholders(arg, { "/absolute/path/to/workflow": project }));
    await greetThrough(new StdioClientTransport({ command: installed!.command, args, env, cwd: elsewhere, stderr: "pipe" }));
  });

  it("DX-12: the README's stdio recipe for a clone of this repository answers tools/call from an unrelated cwd", async () => {
    const clone = (await readmeMcpRecipes(REPO))[1]!;
    const args = clone.args.map((arg) => fillPlaceholders(arg, { "/absolute/path/to/steamharness": REPO }));
    await greetThrough(new StdioClientTransport({ command: clone.command, args, env, cwd: elsewhere, stderr: "pipe" }));
  });

  it("DX-12: docs/mcp-http.md's --prefix line serves mcp --http from an unrelated cwd", async () => {
    // Port 0: the recipe's fixed port may be taken on a shared machine; the URL is read from stderr.
    const line = fillPlaceholders(await httpRecipe(), { "/absolute/path/to/workflow": `'${project}'`, "--port 3917": "--port 0" });
    const child: ChildProcess = spawn("sh", ["-c", `exec ${line}`], { cwd: elsewhere, env, stdio: ["ignore", "ignore", "pipe"], detached: true });
    try {
      let stderr = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr!.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(stderr);
          if (match) resolve(match[1]!);
        });
        child.on("exit", (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
      await greetThrough(new StreamableHTTPClientTransport(new URL(url)));
    } finally {
      // npx leaves its child running on SIGTERM: stop the whole process group the test started,
      // and wait until every member is gone (the server writes its data folder as it stops).
      const groupAlive = () => {
        try {
          process.kill(-child.pid!, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (groupAlive()) process.kill(-child.pid!, "SIGTERM");
      await waitFor(() => !groupAlive(), 20_000);
    }
  });
});
