import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_DIST, CLI_SOURCE, cleanEnv, cleanup, EXAMPLE, FAKE_SECRET, KITCHEN, KITCHEN_ID, REPO, runCli, startMcp, tempDir, writeProject, type CliResult } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(90_000);

const ID = "22222222-2222-4222-8222-222222222222";
const pkg = (extra: Record<string, unknown>) => JSON.stringify({ type: "module", ...extra });
const HELLO = `export default { entrypoints: { hello: { title: "Hello", params: [{ name: "who", type: "string", required: true }], run: (p) => ({ hi: p.who }) } } };\n`;

let tmp: string;
let dataDir: string;

// What depends on the build alone (a help page, the version) is printed once per file and read by
// every test that checks it (ARCH-12: four processes fewer). Keyed by the whole command line, so
// the built bin's own --version is shared only when the other tests run that same bin.
const printed = new Map<string, Promise<CliResult>>();
function printedBy(args: string[], argsPrefix: string[] = CLI_SOURCE): Promise<CliResult> {
  const key = JSON.stringify([...argsPrefix, ...args]);
  if (!printed.has(key)) printed.set(key, runCli(args, { argsPrefix }));
  return printed.get(key)!;
}

beforeAll(async () => {
  tmp = await tempDir();
  dataDir = join(tmp, "data");
});
afterAll(async () => {
  await cleanup(tmp);
});

describe("steamharness CLI basics", () => {
  it("--version prints the package.json version", async () => {
    const version = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
    const result = await printedBy(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("--help lists structure, run and mcp", async () => {
    const result = await printedBy(["--help"]);
    expect(result.code).toBe(0);
    for (const command of ["structure", "run", "mcp"]) expect(result.stdout).toMatch(new RegExp(`^\\s+${command} `, "m"));
  });

  it("mcp --help lists every MCP-2 option", async () => {
    const result = await printedBy(["mcp", "--help"]);
    for (const flag of ["--data-dir", "--file-store-dir", "--kv-store-dir", "--persistent-value-store-dir", "--file-create-store-dir", "--auth-dir", "--related-project"]) {
      expect(result.stdout).toContain(flag);
    }
  });

  it("SEC-5 mcp --help and run --help document --allow-file-root and its default", async () => {
    for (const command of ["mcp", "run"]) {
      const result = await printedBy([command, "--help"]);
      expect(result.stdout.replace(/\s+/g, " ")).toMatch(/--allow-file-root <dir> import file params only from below this directory .* default the project dir and the working dir/);
    }
  });
});

describe("WF-1 steamharness structure", () => {
  it("WF-1 prints the structure report as JSON, without the project's stdout noise", async () => {
    const result = await runCli(["structure", KITCHEN, "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { projectId: string; entrypoints: Array<{ id: string; title: string; params: unknown[] }> };
    expect(report.projectId).toBe(KITCHEN_ID);
    expect(report.entrypoints.map((e) => e.id)).toEqual(expect.arrayContaining(["echo", "noisy", "ask_twice", "store"]));
    expect(report.entrypoints.find((e) => e.id === "echo")).toMatchObject({ title: "Echo", description: "Returns its params" });
    expect(result.stderr).toContain("module loaded (stdout noise at import time)");
  });

  it("WF-1 prints a readable report by default", async () => {
    const result = await runCli(["structure", EXAMPLE]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("greet — Greet");
    expect(result.stdout).toContain("- destination: string, required — Where to go");
  });

  it.each([
    ["index.js", `export default ${HELLO.slice("export default ".length)}`],
    ["index.mjs", HELLO],
    ["src/index.ts", `type P = { who: string };\nexport default { entrypoints: { hello: { title: "Hello", params: [{ name: "who", type: "string" as const, required: true }], run: (p: P): { hi: string } => ({ hi: p.who }) } } };\n`],
  ])("WF-1 loads a %s main", async (main, source) => {
    const dir = await writeProject(join(tmp, `main-${main.replace(/\W/g, "-")}`), { "package.json": pkg({ id: ID, projectType: "workflow", main }), [main]: source });
    const result = await runCli(["structure", dir, "--json"]);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({
      projectId: ID,
      projectType: "workflow",
      entrypoints: [{ id: "hello", title: "Hello", description: "", params: [{ name: "who", type: "string", required: true }] }],
    });
  });

  it.each([
    ["a missing id", { projectType: "workflow", main: "index.mjs" }, /has no "id"/],
    ["a non-UUID id", { id: "not-a-uuid", projectType: "workflow", main: "index.mjs" }, /"id" must be a UUID/],
    ["a conversation project", { id: ID, projectType: "conversation", main: "index.mjs" }, /not a workflow project/],
    ["a missing entry module", { id: ID, projectType: "workflow", main: "missing.mjs" }, /workflow entry module not found/],
  ])("WF-1 refuses %s with a clear error", async (label, manifest, message) => {
    const dir = await writeProject(join(tmp, `bad-${label.replace(/\W/g, "-")}`), { "package.json": pkg(manifest), "index.mjs": HELLO });
    const result = await runCli(["structure", dir]);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(result.stderr.split("\n").filter(Boolean)).toHaveLength(1);
  });

  it("WF-1 refuses a plain folder and a module that does not load", async () => {
    const plain = await writeProject(join(tmp, "plain"), { "readme.md": "hi" });
    expect((await runCli(["structure", plain])).stderr).toMatch(/not a workflow project: .* has no package.json/);
    const broken = await writeProject(join(tmp, "broken"), { "package.json": pkg({ id: ID, projectType: "workflow", main: "index.mjs" }), "index.mjs": "export default {" });
    const result = await runCli(["structure", broken]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/cannot load workflow module/);
  });
});

describe("WF-1 steamharness run", () => {
  const data = () => ["--data-dir", dataDir];

  it("WF-1 run --json prints the run report; project output goes to stderr", async () => {
    const result = await runCli(["run", KITCHEN, "noisy", "--json", ...data()]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ status: "success", projectId: KITCHEN_ID, entrypointId: "noisy", result: { data: { errCode: 0, errMessage: "", output: { ok: true } } } });
    expect(report.runId).toMatch(/^\d{8}-[0-9a-f]{12}$/);
    expect(result.stdout).not.toContain(FAKE_SECRET);
    expect(result.stderr).toContain(`console.log ${FAKE_SECRET}`);
  });

  it("WF-1 run passes validated params (defaults applied) to the entrypoint", async () => {
    const result = await runCli(["run", KITCHEN, "echo", "--params", JSON.stringify({ text: "hi", tags: ["x"], due: "2026-01-31" }), "--json", ...data()]);
    const report = JSON.parse(result.stdout) as { result: { data: { output: { params: unknown; entrypointId: string } } } };
    expect(report.result.data.output.params).toEqual({ text: "hi", tags: ["x"], due: "2026-01-31", mode: "a" });
  });

  it("WF-1 run refuses invalid params before running anything", async () => {
    const result = await runCli(["run", KITCHEN, "echo", "--params", JSON.stringify({ text: 1, extra: true }), ...data()]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("arguments.text: Expected string");
    expect(result.stderr).toContain("arguments.extra: unknown property");
  });

  it("WF-1 run refuses malformed --params JSON and unknown entrypoints", async () => {
    expect((await runCli(["run", KITCHEN, "echo", "--params", "{nope", ...data()])).stderr).toMatch(/--params is not valid JSON/);
    expect((await runCli(["run", KITCHEN, "nope", ...data()])).stderr).toMatch(/unknown entrypoint "nope"/);
  });

  it("WF-1 a business errCode is a failed run (exit 1, report kept)", async () => {
    const result = await runCli(["run", KITCHEN, "noisy_fail", "--json", ...data()]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "failed", result: { data: { errCode: 7, errMessage: "business failure" } }, error: { code: "business_error" } });
  });

  it("WF-1 a run waiting for input without a terminal reports interaction_required (DX-4: exit 3)", async () => {
    const result = await runCli(["run", KITCHEN, "ask_twice", "--json", ...data()]);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: "waiting_for_input",
      error: { code: "interaction_required" },
      pending: { kind: "input", message: "First question?", fields: ["answer (string, required)"] },
    });
  });
});

describe("DX-4 run reports and exit codes", () => {
  const data = () => ["--data-dir", dataDir];

  it.each([
    ["malformed --params", ["run", KITCHEN, "echo", "--params", "{nope"], { projectId: null, entrypointId: "echo", error: { code: "input_validation", field: "--params" } }],
    ["invalid params", ["run", KITCHEN, "echo", "--params", '{"text":1}'], { projectId: KITCHEN_ID, error: { code: "input_validation", problems: ["arguments.text: Expected string"] } }],
    ["an unknown entrypoint", ["run", KITCHEN, "nope"], { projectId: KITCHEN_ID, entrypointId: "nope", error: { code: "not_found", message: 'unknown entrypoint "nope"' } }],
    ["a missing project", ["run", "/nonexistent/steamharness-project", "echo"], { projectId: null, error: { code: "not_found", message: expect.stringContaining("workflow project folder not found") } }],
  ])("DX-4 run --json prints one JSON document for %s (status rejected, exit 2)", async (_label, args, expected) => {
    const result = await runCli([...args, "--json", ...data()]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ runId: null, status: "rejected", ...expected });
    expect(result.stderr).toContain(`steamharness: ${(JSON.parse(result.stdout) as { error: { message: string } }).error.message}`);
  });

  it.each([
    ["0 for a successful run", ["run", KITCHEN, "echo", "--params", '{"text":"x"}'], 0],
    ["1 for a run that failed", ["run", KITCHEN, "throws"], 1],
    ["2 for an unknown option", ["run", KITCHEN, "echo", "--no-such-option"], 2],
    ["2 for a missing argument", ["run", KITCHEN], 2],
    ["3 for a run waiting for input", ["run", KITCHEN, "ask_twice"], 3],
  ])("DX-4 the exit code is %s", async (_label, args, code) => {
    const result = await runCli([...args, ...data()]);
    expect(result.code).toBe(code);
    if (code === 2) expect(result.stderr).toMatch(/^steamharness: (unknown option '--no-such-option'|missing required argument 'entrypoint') \(see --help\)\n$/);
  });

  it("DX-4 DX-18 run --help documents the run's exit codes; the program's --help the general ones", async () => {
    const help = await printedBy(["run", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:\n\s+0 {2}success\n\s+1 {2}the run failed[^\n]*\n\s+2 {2}usage or input error[^\n]*\n\s+3 {2}the run is waiting for input/);
    const root = await printedBy(["--help"]);
    expect(root.stdout).toMatch(/Exit codes:\n\s+0 {2}the command did what was asked\n\s+1 [^\n]*\n\s+2 {2}usage or input error[^\n]*\n\s+3 {2}a run is waiting for input/);
  });

  it("DX-4 a run that throws prints its stack on stderr, credentials redacted like the result", async () => {
    const result = await runCli(["run", KITCHEN, "throws", "--json", ...data()]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "failed", error: { code: "run_failed", message: "boom with key [redacted] and none" } });
    expect(result.stderr).toMatch(/threw:\nError: boom with key \[redacted\] and none\n\s+at .*workflow\.mjs:\d+/);
    expect(result.stdout + result.stderr).not.toContain("kitchen-api-key-1234567890");
  });
});

// The lead's CI builds before testing; locally dist/ may be absent.
const builtIt = existsSync(CLI_DIST) ? it : it.skip;
describe("the built bin (dist/cli.js)", () => {
  builtIt("runs --version, structure and run from dist (skipped when dist/cli.js is not built: run `npm run build`)", async () => {
    const prefix = [CLI_DIST];
    expect((await printedBy(["--version"], prefix)).code).toBe(0);
    const structure = await runCli(["structure", EXAMPLE, "--json"], { argsPrefix: prefix });
    expect(JSON.parse(structure.stdout)).toMatchObject({ projectId: "5b0c6a8e-2f4d-4c1a-9e7b-3d2f1a0c9b84" });
    const run = await runCli(["run", EXAMPLE, "greet", "--params", '{"name":"Ada"}', "--json", "--data-dir", dataDir], { argsPrefix: prefix, env: cleanEnv() });
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "success", result: { data: { output: { greeting: "Hello, Ada!" } } } });
  });

  builtIt("MCP-1 serves over stdio from dist with the SDK client (skipped when dist/cli.js is not built: run `npm run build`)", async () => {
    const session = await startMcp(EXAMPLE, ["--data-dir", dataDir], { command: [CLI_DIST] });
    try {
      expect((await session.client.listTools()).tools.map((tool) => tool.name)).toContain("greet");
      const result = await session.client.callTool({ name: "greet", arguments: { name: "dist" } });
      expect(result.structuredContent).toMatchObject({ status: "success", output: { greeting: "Hello, dist!" } });
    } finally {
      await session.close();
    }
  });
});
