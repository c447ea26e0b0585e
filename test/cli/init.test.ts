import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_DIST, cleanup, REPO, runCli, tempDir } from "./helpers.js";

// `steamharness init` (DX-1). The scaffolds are installed from the packed tarball, tested and
// started in test/package/pack.test.ts; here: the command's behaviour, and a type check of both
// scaffolds against this checkout's build (fast feedback on the templates).
jest.setTimeout(90_000);

const version = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const importsOf = (source: string): string[] => [...source.matchAll(/^import [^"]*"([^"]+)";$/gm)].map((match) => match[1]!);

let tmp: string;
beforeAll(async () => {
  tmp = await tempDir("sh-init-");
});
afterAll(async () => {
  await cleanup(tmp);
});

describe("steamharness init (DX-1)", () => {
  it("DX-1 init workflow <dir> writes a typed project that imports only steamharness, and prints the next steps", async () => {
    const dir = join(tmp, "My Workflow");
    const result = await runCli(["init", "workflow", dir]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(readdirSync(dir, { recursive: true }).map(String).sort()).toEqual([".gitignore", "README.md", "package.json", "test", "test/workflow.test.ts", "tsconfig.json", "workflow.ts"]);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg).toMatchObject({ name: "my-workflow", private: true, type: "module", projectType: "workflow", main: "workflow.ts", dependencies: { steamharness: `^${version}` } });
    expect(pkg.id).toMatch(UUID);
    expect(pkg.scripts).toEqual({ start: "steamharness run . greet", test: "tsx --test test/workflow.test.ts", typecheck: "tsc --noEmit" });
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(["@types/node", "tsx", "typescript"]);
    const workflow = readFileSync(join(dir, "workflow.ts"), "utf8");
    expect(importsOf(workflow)).toEqual(["steamharness"]);
    expect(workflow).toContain("export default defineWorkflow({");
    expect(result.stdout).toContain(`Created a workflow project in ${dir} (project id ${pkg.id}):`);
    expect(result.stdout).toContain(`Next steps:\n  cd "${dir}"\n  npm install\n  npm start`);
  });

  const builtIt = existsSync(CLI_DIST) && existsSync(join(REPO, "dist/index.d.ts")) ? it : it.skip;

  // From dist: `--import tsx` (the sources) resolves tsx from the working folder, outside the repository here.
  builtIt("DX-1 init conversation defaults to the current folder; a .git folder alone counts as empty (skipped when dist is not built: run `npm run build`)", async () => {
    const dir = join(tmp, "assistant");
    mkdirSync(join(dir, ".git"), { recursive: true });
    const result = await runCli(["init", "conversation"], { cwd: dir, argsPrefix: [CLI_DIST] });
    expect(result.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg).toMatchObject({ name: "assistant", projectType: "conversation", main: "conversation.ts", scripts: { start: "steamharness chat .", test: "tsx --test test/conversation.test.ts" } });
    const conversation = readFileSync(join(dir, "conversation.ts"), "utf8");
    expect(importsOf(conversation)).toEqual(["steamharness", "steamharness/capabilities", "steamharness/ports", "steamharness/testing"]);
    expect(conversation).toContain("createOfflineModel");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("## A real model");
    // No `cd` step when the project is the current folder.
    expect(result.stdout).toMatch(/Next steps:\n {2}npm install\n/);
  });

  it("DX-1 a non-empty folder is refused with exit code 2 and left untouched; an unknown kind is a usage error", async () => {
    const dir = join(tmp, "busy");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), "{\"name\":\"mine\"}");
    const refused = await runCli(["init", "workflow", dir]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(`steamharness: ${dir} is not empty (package.json); choose an empty or new folder, or pass --force to write into it (files of the same names are replaced)\n`);
    expect(readdirSync(dir)).toEqual(["package.json"]);
    expect(readFileSync(join(dir, "package.json"), "utf8")).toBe("{\"name\":\"mine\"}");

    const unknown = await runCli(["init", "kanban", join(tmp, "k")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Allowed choices are workflow, conversation.");
    expect(existsSync(join(tmp, "k"))).toBe(false);

    const file = join(tmp, "a-file");
    writeFileSync(file, "x");
    const notDir = await runCli(["init", "workflow", file, "--force"]);
    expect(notDir).toMatchObject({ code: 2, stderr: `steamharness: ${file} is a file, not a folder\n` });
  });

  it("DX-1 --force writes into a non-empty folder, names every file it replaced and keeps the others", async () => {
    const dir = join(tmp, "forced");
    mkdirSync(dir);
    writeFileSync(join(dir, "README.md"), "mine");
    writeFileSync(join(dir, "notes.txt"), "keep me");
    const result = await runCli(["init", "workflow", dir, "--force"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("  README.md  (replaced the existing file)\n");
    expect(result.stdout.match(/replaced the existing file/g)).toHaveLength(1);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("keep me");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toMatch(/^# forced\n/);
  });

  it("DX-1 init --help documents the kinds, the folder and --force", async () => {
    const result = await runCli(["init", "--help"]);
    expect(result.code).toBe(0);
    // Wrapped to the terminal's width: compared with runs of whitespace as one space.
    expect(result.stdout.replace(/\s+/g, " ")).toContain('(choices: "workflow", "conversation")');
    expect(result.stdout).toContain("--force");
    expect(result.stdout).toContain("--steamharness-from <path>");
    expect(result.stdout).toContain("Exit codes:");
    expect((await runCli(["--help"])).stdout).toMatch(/^\s+init \[options\] <kind> \[dir\]/m);
  });

  builtIt("DX-1 both scaffolds type-check (tsc --noEmit, their own tsconfig) and the workflow's structure loads, against this checkout's build (skipped when dist is not built: run `npm run build`)", async () => {
    const dirs = { workflow: join(tmp, "typed-workflow"), conversation: join(tmp, "typed-conversation") };
    for (const [kind, dir] of Object.entries(dirs)) {
      expect((await runCli(["init", kind, dir])).code).toBe(0);
      // node_modules as an install lays it out: steamharness (here: this checkout) and @types/node.
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(REPO, join(dir, "node_modules", "steamharness"));
      symlinkSync(join(REPO, "node_modules", "@types"), join(dir, "node_modules", "@types"));
    }
    // `tsc --noEmit -p <dir>` for both, in one process (test/fixtures/tsc-passes.mjs, ARCH-12: the
    // declarations both read are parsed once).
    const passes = Object.entries(dirs).map(([kind, dir]) => ({ name: kind, args: ["--noEmit", "-p", dir] }));
    const checked = JSON.parse(execFileSync(process.execPath, [join(REPO, "test/fixtures/tsc-passes.mjs"), JSON.stringify(passes)], { cwd: tmp, encoding: "utf8" })) as Array<{ name: string; status: number; stdout: string }>;
    expect(checked).toEqual([{ name: "workflow", status: 0, stdout: "" }, { name: "conversation", status: 0, stdout: "" }]);
    const structure = await runCli(["structure", dirs.workflow, "--json"]);
    expect(structure.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dirs.workflow, "package.json"), "utf8"));
    expect(JSON.parse(structure.stdout)).toMatchObject({ projectId: pkg.id, entrypoints: [{ id: "greet", params: [{ name: "name", default: "world" }, { name: "style", options: ["plain", "excited"] }] }] });
  });
});
