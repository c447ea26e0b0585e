// ARCH-12: TypeBox as one module graph of a few files in the test run (jest.config.js
// `moduleNameMapper`), instead of its ~200 ES modules.
//
// In jest's ESM mode every test file links its own copy of each module it imports, and the cost
// is per module, not per byte: a test file importing "@sinclair/typebox" (200 modules, 129 KB
// bundled) spent ~0.1 CPU-s more than an empty one, the same code bundled into one file ~0 (in
// band, 5 files each). About half the suite's files reach TypeBox through our sources.
//
// The entries the code imports (the root, /value, /compiler, /errors) are bundled together with
// code splitting, so they share one copy of TypeBox's module state (its TypeRegistry and
// FormatRegistry) exactly as the package's own files do. The bundle is the package's ESM build,
// unchanged, written once per TypeBox version under node_modules/.cache; when it cannot be
// written the mapping is empty and the package's own files load.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGE = join(ROOT, "node_modules/@sinclair/typebox");
/** Subpath (as imported) → the package's ESM entry under build/esm. */
const ENTRIES = { index: "index.mjs", value: "value/index.mjs", compiler: "compiler/index.mjs", errors: "errors/index.mjs" };

/**
 * jest `moduleNameMapper` entries sending "@sinclair/typebox" and its /value, /compiler and
 * /errors subpaths to one code-split bundle of them (built on first use), or {} when it cannot be
 * built.
 *
 * @example
 * export default { moduleNameMapper: { ...typeboxModuleMap() } };
 */
export async function typeboxModuleMap() {
  try {
    const { version } = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
    const dir = join(ROOT, "node_modules/.cache/steamharness-typebox", version);
    if (!existsSync(join(dir, "index.mjs"))) {
      const { build } = await import("esbuild");
      const temp = `${dir}.${process.pid}.tmp`;
      const entryPoints = Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(PACKAGE, "build/esm", file)]));
      await build({ entryPoints, outdir: temp, bundle: true, splitting: true, format: "esm", platform: "node", outExtension: { ".js": ".mjs" }, logLevel: "silent" });
      mkdirSync(join(dir, ".."), { recursive: true });
      try {
        renameSync(temp, dir);
      } catch {
        // Another run wrote it first: theirs is the same build.
        rmSync(temp, { recursive: true, force: true });
      }
    }
    return {
      "^@sinclair/typebox$": join(dir, "index.mjs"),
      "^@sinclair/typebox/(value|compiler|errors)$": join(dir, "$1.mjs"),
    };
  } catch {
    return {};
  }
}
