// ARCH-12: packages of many modules load as a bundle of a few files in the test run (jest.config.js
// `moduleNameMapper`), instead of module by module.
//
// In jest's ESM mode every test file links its own copy of each module it imports (CommonJS ones
// too: each file compiles every module it requires again), and the cost is per module, not per
// byte. In band, per test file: TypeBox (~200 modules) cost ~0.1 CPU-s more than an empty file,
// drizzle's SQLite side (~110 CommonJS modules, loaded by about two thirds of the files through
// our SQLite adapters) 0.11, zod's v3 and v4 (~115) 0.12, the OpenAI SDK (~115) 0.11; the same
// code bundled ~0.01 each.
//
// A package's entries the code imports are bundled together with code splitting, so they share
// one copy of the package's module state (TypeBox's TypeRegistry, zod's global registry) exactly
// as the package's own files do; every importer (our sources, the tests, the packages importing
// it) gets that one copy. A subpath not listed still loads the package's own files. Each bundle is
// the package's ESM build, unchanged (the packages it imports stay external), written once per version under node_modules/.cache; when one
// cannot be built its package is left out of the map and loads as before. The map sends the
// package's name to the copy installed at the repository's root, so a package listed here must
// not be installed twice (a dependency's own older copy would get the root's).
//
// drizzle's SQLite side is loaded with `require` from src/adapters/driven/sqlite/shared/
// drizzle-modules.ts, which takes the single-file `drizzle-sqlite.cjs` when one sits beside it (as
// in dist/ and beside the test fixtures' bundles): the map gives it the same file, built from
// drizzle-sqlite-bundle.ts as tsup.config.ts builds it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CACHE = join(ROOT, "node_modules/.cache/steamharness-modules");

/** Package → the subpaths (as imported) bundled together. */
const PACKAGES = {
  // Our sources: the root, /value, /compiler, /errors.
  "@sinclair/typebox": [".", "./value", "./compiler", "./errors"],
  // The MCP SDKs and `ai` import zod's v3 and v4 APIs.
  zod: [".", "./v3", "./v4", "./v4/core", "./v4/mini", "./v4-mini", "./mini", "./v4/locales/en.js"],
  // pi-ai's providers, our provider loader and the gateway tests import the roots only.
  openai: ["."],
  "@anthropic-ai/sdk": ["."],
  // The PostgreSQL adapters (ESM; the SQLite ones use the CommonJS bundle below).
  "drizzle-orm": [".", "./pg-core", "./node-postgres", "./node-postgres/migrator", "./sqlite-core", "./better-sqlite3"],
};

const DRIZZLE_SQLITE = join(ROOT, "src/adapters/driven/sqlite/shared/drizzle-sqlite-bundle.ts");

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const shortHash = (text) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/**
 * Runs `build(temp)` unless `dir` exists, then moves the folder it wrote to `dir`; another run
 * that got there first wrote the same build, so its folder is kept.
 */
async function buildOnce(dir, build) {
  if (existsSync(dir)) return;
  const temp = `${dir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  await build(temp);
  mkdirSync(join(dir, ".."), { recursive: true });
  try {
    renameSync(temp, dir);
  } catch {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The moduleNameMapper entries of one package's code-split bundle (built on first use), or {}. */
async function packageMap(esbuild, name, subpaths) {
  try {
    const { version } = JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8"));
    const entries = subpaths.map((subpath, index) => [`entry${index}`, subpath, fileURLToPath(import.meta.resolve(`${name}${subpath.slice(1)}`))]);
    const dir = join(CACHE, `${name.replace("/", "+")}-${version}-${shortHash(`${esbuild.version}\0${subpaths.join("\0")}`)}`);
    await buildOnce(dir, (outdir) =>
      esbuild.build({
        entryPoints: Object.fromEntries(entries.map(([entry, , file]) => [entry, file])),
        outdir,
        bundle: true,
        splitting: true,
        format: "esm",
        platform: "node",
        // Other packages it imports stay theirs (one copy of pg for drizzle and our adapters).
        packages: "external",
        outExtension: { ".js": ".mjs" },
        logLevel: "silent",
      }),
    );
    return Object.fromEntries(entries.map(([entry, subpath]) => [`^${escape(`${name}${subpath.slice(1)}`)}$`, join(dir, `${entry}.mjs`)]));
  } catch {
    return {};
  }
}

/** The entry for drizzle-modules' `./drizzle-sqlite.cjs` (built on first use), or {}. */
async function drizzleSqliteMap(esbuild) {
  try {
    const { version } = JSON.parse(readFileSync(join(ROOT, "node_modules/drizzle-orm/package.json"), "utf8"));
    const dir = join(CACHE, `drizzle-sqlite-${version}-${shortHash(`${esbuild.version}\0${readFileSync(DRIZZLE_SQLITE, "utf8")}`)}`);
    await buildOnce(dir, (outdir) =>
      esbuild.build({ entryPoints: [DRIZZLE_SQLITE], outfile: join(outdir, "drizzle-sqlite.cjs"), bundle: true, format: "cjs", platform: "node", target: "node20", external: ["better-sqlite3"], logLevel: "silent" }),
    );
    return { "^\\./drizzle-sqlite\\.cjs$": join(dir, "drizzle-sqlite.cjs") };
  } catch {
    return {};
  }
}

/**
 * jest `moduleNameMapper` entries sending each package above (and its listed subpaths) to one
 * code-split bundle of them, and drizzle-modules' `./drizzle-sqlite.cjs` to drizzle's SQLite side
 * in one file (built on first use); a package whose bundle cannot be built is left out.
 *
 * @example
 * export default { moduleNameMapper: { ...(await bundledModuleMap()) } };
 */
export async function bundledModuleMap() {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    return {};
  }
  const maps = await Promise.all([...Object.entries(PACKAGES).map(([name, subpaths]) => packageMap(esbuild, name, subpaths)), drizzleSqliteMap(esbuild)]);
  return Object.assign({}, ...maps);
}
