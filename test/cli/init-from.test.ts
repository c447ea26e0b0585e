// DX-7: `init` works before steamharness is on a registry — `--steamharness-from <tarball|dir>`
// writes a `file:` dependency (a scaffold from this checkout installs and passes its test with a
// plain `npm install`), and `--force` over an existing package.json merges into it: the user's
// fields are kept, ours added or set, and every change is listed.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CLI_DIST, cleanup, REPO, runCli, tempDir } from "./helpers.js";

jest.setTimeout(180_000);

const version = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
let tmp: string;
beforeAll(async () => {
  tmp = await tempDir("sh-dx7-");
});
afterAll(async () => {
  await cleanup(tmp);
});

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, any>;

describe("DX-7 init --steamharness-from", () => {
  it("DX-7 a checkout folder becomes a file: dependency; npm install and npm test pass in the scaffold", async () => {
    if (!existsSync(join(REPO, "dist/index.js")) || !existsSync(CLI_DIST)) throw new Error("dist/ is missing: the scaffold installs this checkout as built; run `npm run build` first");
    const dir = join(tmp, "from-checkout");
    const result = await runCli(["init", "workflow", dir, "--steamharness-from", REPO]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const spec = manifestOf(dir).dependencies.steamharness as string;
    const expected = relative(dir, REPO);
    expect(spec).toBe(`file:${expected.length <= REPO.length ? expected : REPO}`);
    expect(result.stdout).toContain(`steamharness comes from ${spec}`);
    // The scaffold's own next steps, as printed: a plain `npm install`, then `npm test`.
    const install = spawnSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8", timeout: 170_000 });
    if (install.status !== 0) throw new Error(`npm install failed\n${install.stdout}\n${install.stderr}`);
    const test = spawnSync("npm", ["test"], { cwd: dir, encoding: "utf8", timeout: 170_000 });
    if (test.status !== 0) throw new Error(`npm test failed\n${test.stdout}\n${test.stderr}`);
    expect(test.stdout).toMatch(/^# fail 0$/m);
    expect(test.stdout).not.toMatch(/^# pass 0$/m);
  });

  it("DX-7 a tarball becomes a file: dependency relative to the project", async () => {
    const tarball = join(tmp, `steamharness-${version}.tgz`);
    writeFileSync(tarball, "");
    const dir = join(tmp, "apps", "from-tarball");
    const result = await runCli(["init", "conversation", dir, "--steamharness-from", tarball]);
    expect(result.code).toBe(0);
    expect(manifestOf(dir).dependencies.steamharness).toBe(`file:../../steamharness-${version}.tgz`);
  });

  it("DX-7 a path that is neither a tarball nor a steamharness checkout is refused (exit 2) and nothing is written", async () => {
    const other = join(tmp, "other");
    mkdirSync(other);
    writeFileSync(join(other, "package.json"), JSON.stringify({ name: "left-pad" }));
    writeFileSync(join(tmp, "notes.txt"), "hi");
    for (const [from, message] of [
      [other, /is not a steamharness checkout/],
      [join(tmp, "notes.txt"), /is a file but not a tarball/],
      [join(tmp, "missing.tgz"), /no such file or folder/],
    ] as const) {
      const dir = join(tmp, "refused");
      const result = await runCli(["init", "workflow", dir, "--steamharness-from", from]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^steamharness: [^\n]*\n$/);
      expect(result.stderr).toMatch(message);
      expect(existsSync(dir)).toBe(false);
    }
  });
});

describe("DX-7 init --force merges an existing package.json", () => {
  it("DX-7 the user's fields are kept, ours added or set, and every change is listed", async () => {
    const dir = join(tmp, "existing");
    mkdirSync(dir);
    const theirs = {
      name: "my-tool",
      version: "2.3.4",
      author: "Ada <ada@example.com>",
      type: "commonjs",
      scripts: { lint: "eslint .", test: "jest" },
      dependencies: { lodash: "^4.17.21", steamharness: "^0.0.1" },
    };
    writeFileSync(join(dir, "package.json"), JSON.stringify(theirs, null, 2));
    const result = await runCli(["init", "workflow", dir, "--force"]);
    expect(result.code).toBe(0);
    const merged = manifestOf(dir);
    expect(merged).toMatchObject({ name: "my-tool", version: "2.3.4", author: "Ada <ada@example.com>", type: "module", projectType: "workflow", main: "workflow.ts" });
    expect(merged.scripts).toEqual({ lint: "eslint .", test: "tsx --test test/workflow.test.ts", start: "steamharness run . greet", typecheck: "tsc --noEmit" });
    expect(merged.dependencies).toEqual({ lodash: "^4.17.21", steamharness: `^${version}` });
    expect(Object.keys(merged.devDependencies).sort()).toEqual(["@types/node", "tsx", "typescript"]);
    expect(result.stdout).toMatch(/package\.json {2}\(merged into the existing file: \d+ changes; your other fields are kept\)/);
    for (const line of ['type: "commonjs" → "module"', "id added", "projectType added", 'scripts.test: "jest" → "tsx --test test/workflow.test.ts"', "scripts.start added", `dependencies.steamharness: "^0.0.1" → "^${version}"`, "devDependencies added"]) {
      expect(result.stdout).toContain(`      ${line}\n`);
    }
    expect(result.stdout).not.toContain("author");
    expect(result.stdout).not.toContain("lodash");

    // Again, with --steamharness-from: the project id it now has is kept, only the dependency changes.
    const again = await runCli(["init", "workflow", dir, "--force", "--steamharness-from", REPO]);
    expect(again.code).toBe(0);
    const after = manifestOf(dir);
    expect(after.id).toBe(merged.id);
    expect(again.stdout).toContain(`(project id ${merged.id})`);
    expect(again.stdout).toMatch(/\(merged into the existing file: 1 change;[^\n]*\n {6}dependencies\.steamharness: "\^[\d.]+" → "file:[^"]+"\n {2}tsconfig\.json/);
  });

  it("DX-7 a package.json that is not a JSON object is refused and nothing is written", async () => {
    const dir = join(tmp, "broken");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), "{ not json");
    const result = await runCli(["init", "workflow", dir, "--force"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/package\.json is not a JSON object/);
    expect(readFileSync(join(dir, "package.json"), "utf8")).toBe("{ not json");
    expect(existsSync(join(dir, "workflow.ts"))).toBe(false);
  });
});
