import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SteamharnessError } from "../../../domain/errors.js";
import type { ViewerAssetName, ViewerAssets } from "../../../ports/viewer-assets.js";

/** The viewer page and the MCP Apps card view, as `npm run build` writes them into `dist/viewer/`. */
export const VIEWER_ASSET_FILES: Record<ViewerAssetName, string> = { page: "index.html", cardApp: "card-app.html" };

function moduleDirectory(): string {
  // The CJS bundle has __dirname and no import.meta.url; the ESM build, tsx and jest the reverse.
  if (typeof __dirname === "string") return __dirname;
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * The folder of the built viewer assets: `viewer/` next to the bundle (`dist/viewer`, shipped in
 * the package), or the package's `dist/viewer` above the sources (tsx, jest). `null` when no
 * build is found.
 *
 * @example
 * findViewerAssets() // "/…/steamharness/dist/viewer"
 */
export function findViewerAssets(start: string = moduleDirectory()): string | null {
  let directory = start;
  for (let depth = 0; depth < 8; depth++) {
    for (const candidate of [join(directory, "viewer"), join(directory, "dist", "viewer")]) {
      if (existsSync(join(candidate, VIEWER_ASSET_FILES.page))) return candidate;
    }
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return null;
}

/**
 * Reads one built asset; throws `unavailable` naming the fix when the package was not built.
 *
 * @example
 * const html = readViewerAsset("cardApp");
 */
export function readViewerAsset(name: ViewerAssetName, directory: string | null = findViewerAssets()): string {
  const path = directory === null ? null : join(directory, VIEWER_ASSET_FILES[name]);
  if (path === null || !existsSync(path)) {
    throw new SteamharnessError("unavailable", `[steamharness] [viewer] ${VIEWER_ASSET_FILES[name]} is not built: run \`npm run build\` (it writes dist/viewer/)`);
  }
  return readFileSync(path, "utf8");
}

/**
 * The {@link ViewerAssets} port over this package's `dist/viewer` (ARCH-9: handed to the viewer and the MCP card view by the root).
 *
 * @example
 * const html = localViewerAssets.read("page");
 */
export const localViewerAssets: ViewerAssets = {
  read: (name, directory) => readViewerAsset(name, directory ?? findViewerAssets()),
};
