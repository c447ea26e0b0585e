/**
 * The composition root's code sandbox (EXT-4): QuickJS/wasm in worker threads (SEC-3, SEC-4),
 * loaded on first use so that only runs with code mode load the engine. One sandbox per process:
 * its warm worker is unref'd (it never keeps the process alive) and ends with the process.
 */
import type { CodeSandbox } from "../ports/code-sandbox.js";

let loaded: Promise<CodeSandbox> | null = null;

/**
 * The default code sandbox, loading its adapter (and `quickjs-emscripten`) on first use.
 *
 * @example
 * const sandbox = await loadCodeSandbox();
 * const result = await sandbox.run({ code: "return 1", functions: [], call, limits });
 */
export function loadCodeSandbox(): Promise<CodeSandbox> {
  loaded ??= import("../adapters/quickjs/quickjs-sandbox.js").then(({ createQuickJsSandbox }) => createQuickJsSandbox());
  return loaded;
}
