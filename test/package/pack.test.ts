import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

// The tarball is packed from a fresh copy of the checkout (its tracked and not-ignored files:
// no dist/), so `npm pack` has to build dist itself through the prepack script, as on a fresh
// clone. The copy links this checkout's node_modules (a clone would have run `npm ci`), and the
// checkout's own dist/ is never rebuilt under the other tests' feet.
//
// Two installs of that one tarball:
// - unpacked into <tmp>/node_modules/steamharness with the runtime dependencies linked from this
//   checkout, to exercise every subpath and SQLite end to end (a real install would rebuild
//   better-sqlite3 from source: minutes on CI's two cores);
// - `npm install <tarball>` into a fresh project, as a consumer does (install scripts skipped
//   for the same reason: importing the package and `--help` do not open SQLite).

const root = resolve(".");
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string; exports: Record<string, unknown>; bin: Record<string, string> };
const subpaths = Object.keys(pkg.exports).filter((key) => key !== "./package.json").map((key) => (key === "." ? "steamharness" : `steamharness/${key.slice(2)}`));

describe("packed package (issue 2 / PORT)", () => {
  let dir = "";
  let tarball = "";

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "steamharness-pack-"));
    const clone = join(dir, "clone");
    const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
    for (const file of listed) {
      if (file.startsWith("dist/")) continue;
      mkdirSync(dirname(join(clone, file)), { recursive: true });
      cpSync(join(root, file), join(clone, file));
    }
    symlinkSync(join(root, "node_modules"), join(clone, "node_modules"));
    // Without --json: the prepack build prints to stdout too.
    execFileSync("npm", ["pack", "--pack-destination", dir], { cwd: clone, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
    tarball = join(dir, readdirSync(dir).find((f) => f.endsWith(".tgz"))!);
    const modules = join(dir, "node_modules");
    mkdirSync(join(modules, "steamharness"), { recursive: true });
    execFileSync("tar", ["xzf", tarball, "-C", join(modules, "steamharness"), "--strip-components=1"]);
    for (const name of readdirSync(join(root, "node_modules"))) {
      if (name === "steamharness" || name.startsWith(".")) continue;
      symlinkSync(join(root, "node_modules", name), join(modules, name));
    }
  }, 600_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("DX-5 npm pack on a fresh clone builds dist (prepack) and ships dist, LICENSE, README and the migrations, no sources or tests", () => {
    const files = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).split("\n");
    for (const file of ["dist/index.js", "dist/index.cjs", "dist/index.d.ts", "dist/cli.js", "dist/workflow-worker.js", "LICENSE", "README.md", "drizzle/meta/_journal.json"]) {
      expect(files).toContain(`package/${file}`);
    }
    expect(files.some((f) => /^package\/drizzle\/\d{4}_.*\.sql$/.test(f))).toBe(true);
    expect(files.some((f) => f.startsWith("package/src/") || f.startsWith("package/test/"))).toBe(false);
    expect(readFileSync(join(dir, "node_modules/steamharness/LICENSE"), "utf8")).toMatch(/^MIT License\n\nCopyright \(c\) steamharness contributors\n/);
  });

  it("DX-5 npm install <tarball> into a fresh project: ESM import, CJS require and the steamharness bin", () => {
    const consumer = join(dir, "consumer");
    mkdirSync(consumer);
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, version: "1.0.0" }));
    execFileSync("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", tarball], { cwd: consumer, encoding: "utf8", maxBuffer: 16 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
    const esm = spawnSync(process.execPath, ["--input-type=module", "-e", `import { finalText, isSteamharnessError } from "steamharness"; console.log(typeof finalText, typeof isSteamharnessError)`], { cwd: consumer, encoding: "utf8" });
    expect(esm.stderr).toBe("");
    expect(esm.stdout).toBe("function function\n");
    const cjs = spawnSync(process.execPath, ["-e", `const { finalText, SteamharnessError } = require("steamharness"); console.log(typeof finalText, typeof SteamharnessError)`], { cwd: consumer, encoding: "utf8" });
    expect(cjs.stderr).toBe("");
    expect(cjs.stdout).toBe("function function\n");
    const help = spawnSync(join(consumer, "node_modules/.bin/steamharness"), ["--help"], { cwd: consumer, encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: steamharness/);
    expect(help.stdout).toContain("Exit codes:");
  }, 600_000);

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
