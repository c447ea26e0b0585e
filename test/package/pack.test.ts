import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

// Installs the packed tarball the way a consumer gets it and imports every subpath with `import`
// and `require`. The tarball is unpacked into <tmp>/node_modules/steamharness; its runtime
// dependencies are linked from this checkout's node_modules instead of being fetched again,
// because a fresh install rebuilds better-sqlite3 from source (3+ minutes on CI's two cores).
// What is under test is the package itself: its file list, exports map, both module formats and
// the bin.

const root = resolve(".");
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string; exports: Record<string, unknown>; bin: Record<string, string> };
const subpaths = Object.keys(pkg.exports).filter((key) => key !== "./package.json").map((key) => (key === "." ? "steamharness" : `steamharness/${key.slice(2)}`));

describe("packed package (issue 2 / PORT)", () => {
  let dir = "";

  beforeAll(() => {
    if (!existsSync("dist/index.js")) throw new Error("dist/ is missing: run `npm run build` before the tests (CI does)");
    dir = mkdtempSync(join(tmpdir(), "steamharness-pack-"));
    const out = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { encoding: "utf8" });
    const tarball = join(dir, (JSON.parse(out) as Array<{ filename: string }>)[0].filename);
    const modules = join(dir, "node_modules");
    mkdirSync(join(modules, "steamharness"), { recursive: true });
    execFileSync("tar", ["xzf", tarball, "-C", join(modules, "steamharness"), "--strip-components=1"]);
    for (const name of readdirSync(join(root, "node_modules"))) {
      if (name === "steamharness" || name.startsWith(".")) continue;
      symlinkSync(join(root, "node_modules", name), join(modules, name));
    }
  }, 120_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("ships dist, migrations and README, and no sources or tests", () => {
    const files = execFileSync("tar", ["tzf", readdirSync(dir).map((f) => join(dir, f)).find((f) => f.endsWith(".tgz"))!], { encoding: "utf8" }).split("\n");
    expect(files).toContain("package/dist/index.js");
    expect(files).toContain("package/dist/index.cjs");
    expect(files).toContain("package/dist/index.d.ts");
    expect(files).toContain("package/README.md");
    expect(files.some((f) => f.startsWith("package/drizzle/"))).toBe(true);
    expect(files.some((f) => f.startsWith("package/src/") || f.startsWith("package/test/"))).toBe(false);
  });

  it.each(subpaths)("%s loads with import and with require", (specifier) => {
    const esm = spawnSync(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(specifier)}); console.log(Object.keys(m).length)`], { cwd: dir, encoding: "utf8" });
    expect(esm.stderr).toBe("");
    expect(Number(esm.stdout.trim())).toBeGreaterThan(0);
    const cjs = spawnSync(process.execPath, ["-e", `console.log(Object.keys(require(${JSON.stringify(specifier)})).length)`], { cwd: dir, encoding: "utf8" });
    expect(cjs.stderr).toBe("");
    expect(Number(cjs.stdout.trim())).toBeGreaterThan(0);
  });

  it("the root entry works end to end from the tarball (SQLite default store)", () => {
    const script = `
      import { createSqliteStorage, isSteamharnessError } from "steamharness";
      import { mkdtempSync } from "node:fs"; import { tmpdir } from "node:os"; import { join } from "node:path";
      const storage = await createSqliteStorage({ directory: mkdtempSync(join(tmpdir(), "sh-")) });
      await storage.kv.set({ projectId: "p" }, "k", { v: 1 });
      const got = await storage.kv.get({ projectId: "p" }, "k");
      const bad = await storage.kv.get({ projectId: "p" }, "").catch((e) => isSteamharnessError(e, "input_validation"));
      await storage.close();
      console.log(JSON.stringify([got.value, bad]));`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual([{ v: 1 }, true]);
  });

  it("the steamharness bin prints its version and help", () => {
    const bin = join(dir, "node_modules", "steamharness", pkg.bin.steamharness);
    expect(execFileSync(process.execPath, [bin, "--version"], { cwd: dir, encoding: "utf8" }).trim()).toBe(pkg.version);
    expect(execFileSync(process.execPath, [bin, "--help"], { cwd: dir, encoding: "utf8" })).toMatch(/Usage: steamharness/);
  });
});
