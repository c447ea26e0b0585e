/**
 * Where a sandbox worker thread's script comes from (SEC-3). From the build it is
 * `sandbox-worker.js` next to the bundle (tsup emits both into dist/; a bundle of one's own may
 * put `sandbox-worker.mjs` there). From the sources (tests, `tsx`) a worker thread cannot take
 * tsx's `--import`, and loading tsx inside every worker costs ~10× a plain start, so the worker's
 * sources are bundled once per process with esbuild (which tsx brings along) into
 * `node_modules/.cache`; without esbuild the worker loads them through tsx's `tsImport`.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SteamharnessError } from "../../../domain/errors.js";

// The CJS bundle has __filename and no import.meta.url; the ESM build, tsx and jest the reverse.
const moduleFile = (): string => (typeof __filename === "string" ? __filename : fileURLToPath(import.meta.url));

/** A `require` that resolves from this module (the package's own dependencies). */
export const moduleRequire = (): NodeRequire => (typeof __filename === "string" ? require : createRequire(import.meta.url));

/** A worker script: a file to start, or (`eval`) the source of a bootstrap. */
export interface SandboxWorkerScript {
  script: string;
  eval: boolean;
}

let fromSources: Promise<SandboxWorkerScript> | null = null;

/**
 * The script to start sandbox workers with. Throws `internal` when the build's worker script is
 * missing (a packaging fault, not something a snippet can cause).
 *
 * @example
 * const { script, eval: isEval } = await sandboxWorkerScript();
 */
export function sandboxWorkerScript(file: string = moduleFile()): Promise<SandboxWorkerScript> {
  if (file.endsWith(".ts")) {
    fromSources ??= bundleSources(join(dirname(file), "sandbox-worker.ts")).catch(() => tsxBootstrap(file));
    return fromSources;
  }
  for (const name of ["sandbox-worker.js", "sandbox-worker.mjs"]) {
    const script = join(dirname(file), name);
    if (existsSync(script)) return Promise.resolve({ script, eval: false });
  }
  return Promise.reject(new SteamharnessError("internal", `[steamharness] [sandbox] the sandbox worker script is missing next to ${file} (sandbox-worker.js)`));
}

async function bundleSources(entry: string): Promise<SandboxWorkerScript> {
  const require = moduleRequire();
  const loaded = (await import(pathToFileURL(require.resolve("esbuild")).href)) as typeof import("esbuild") & { default?: typeof import("esbuild") };
  const esbuild = loaded.default ?? loaded;
  let text: string;
  try {
    const built = await esbuild.build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", target: "node20", external: ["quickjs-emscripten"], write: false, logLevel: "silent" });
    text = built.outputFiles[0]!.text;
  } finally {
    // esbuild keeps a service process that would hold the host's event loop open.
    await esbuild.stop?.();
  }
  // Next to the package's node_modules, so the worker resolves `quickjs-emscripten` as the sources do.
  const quickjs = require.resolve("quickjs-emscripten");
  const cache = join(quickjs.slice(0, quickjs.lastIndexOf("node_modules") + "node_modules".length), ".cache", "steamharness-sandbox");
  const script = join(cache, `sandbox-worker-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.mjs`);
  if (!existsSync(script)) {
    mkdirSync(cache, { recursive: true });
    const partial = `${script}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, script);
  }
  return { script, eval: false };
}

function tsxBootstrap(file: string): SandboxWorkerScript {
  // tsx's ESM API (its CommonJS twin, which `require.resolve` names, fails inside a worker).
  const api = pathToFileURL(moduleRequire().resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
  const entry = pathToFileURL(join(dirname(file), "sandbox-worker.ts")).href;
  return { script: `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(pathToFileURL(file).href)}));`, eval: true };
}
