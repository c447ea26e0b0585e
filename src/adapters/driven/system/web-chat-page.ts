import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SteamharnessError } from "../../../domain/errors.js";
import type { BrowserPage } from "../../../ports/browser-page.js";

/** The example's files: the HTML, and the React entry esbuild bundles into `/web-chat.js`. */
const HTML = "index.html";
const ENTRY = "main.tsx";

function moduleDirectory(): string {
  // The CJS bundle has __dirname and no import.meta.url; the ESM build, tsx and jest the reverse.
  if (typeof __dirname === "string") return __dirname;
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * The browser example's folder, `examples/web-chat` of the package (shipped with it), found by
 * walking up from this module; `null` when absent.
 *
 * @example
 * findWebChatExample() // "/…/steamharness/examples/web-chat"
 */
export function findWebChatExample(start: string = moduleDirectory()): string | null {
  for (let directory = start, depth = 0; depth < 8; depth++) {
    const candidate = join(directory, "examples", "web-chat");
    if (existsSync(join(candidate, ENTRY))) return candidate;
    if (dirname(directory) === directory) break;
    directory = dirname(directory);
  }
  return null;
}

/**
 * Bundles the chat page of `directory` (default the package's examples/web-chat) in memory with
 * esbuild: nothing is written, so no built file goes stale or into git. esbuild, React and
 * `@ai-sdk/react` are development dependencies: a missing one throws `unavailable` naming them.
 *
 * @example
 * const page = await bundleWebChatPage(); // { html, script }
 */
export async function bundleWebChatPage(directory: string | null = findWebChatExample()): Promise<BrowserPage> {
  if (directory === null || !existsSync(join(directory, HTML)) || !existsSync(join(directory, ENTRY))) {
    throw new SteamharnessError("unavailable", `[steamharness] [gateway] no chat page at ${directory ?? "examples/web-chat"}: --ui needs a folder with ${HTML} and ${ENTRY}`, { field: "ui" });
  }
  try {
    const { build } = await import("esbuild");
    const result = await build({
      entryPoints: [join(directory, ENTRY)],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: ["chrome120", "firefox120", "safari16"],
      jsx: "automatic",
      minify: true,
      write: false,
      logLevel: "silent",
      define: { "process.env.NODE_ENV": '"production"' },
    });
    return { html: readFileSync(join(directory, HTML), "utf8"), script: result.outputFiles[0]!.text };
  } catch (error) {
    throw new SteamharnessError("unavailable", `[steamharness] [gateway] cannot bundle the chat page (${directory}): --ui needs esbuild, react, react-dom and @ai-sdk/react installed (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`, { field: "ui", cause: error });
  }
}
