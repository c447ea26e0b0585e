/**
 * Builds the viewer's browser assets into one folder (`dist/viewer` at `npm run build`):
 * - index.html: the run viewer page (Preact + htm, ui/viewer/), script and styles inlined so the
 *   server answers one request and its CSP allows exactly those (by hash);
 * - card-app.html: the MCP Apps view of resource cards (ui/card-app/), self-contained as MCP Apps
 *   hosts expect of a `ui://` resource.
 * - bundled-packages.json: the node_modules folders (relative to the repository) whose code the
 *   two pages inline — minified, they keep no path comments, so scripts/third-party-notices.mjs
 *   reads their licenses from this list.
 * Used by tsup.config.ts (after the library build) and by the tests, which build into a
 * temporary folder.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { packageDirOf } from "../scripts/third-party-notices.js";

const here = dirname(fileURLToPath(import.meta.url));

const root = join(here, "..");

async function bundle(entry: string, packages: Set<string>): Promise<string> {
  const result = await build({
    entryPoints: [join(here, entry)],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome120", "firefox120", "safari16"],
    minify: true,
    write: false,
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    metafile: true,
  });
  for (const input of Object.keys(result.metafile.inputs)) {
    const dir = packageDirOf(relative(root, resolve(input)));
    if (dir) packages.add(dir);
  }
  // Inlined into a <script>: a "</script" inside a string must not end the element.
  return result.outputFiles[0]!.text.replace(/<\/script/gi, "<\\/script");
}

async function page(template: string, script: string, styles: string): Promise<string> {
  const html = await readFile(join(here, template), "utf8");
  return html.replace("/*STYLES*/", () => styles).replace("/*SCRIPT*/", () => script);
}

/**
 * Writes index.html, card-app.html and bundled-packages.json into `outDir`.
 *
 * @example
 * await buildViewerAssets("dist/viewer");
 */
export async function buildViewerAssets(outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const packages = new Set<string>();
  const [viewer, cardApp, viewerCss, cardCss] = await Promise.all([
    bundle("viewer/main.ts", packages),
    bundle("card-app/main.ts", packages),
    readFile(join(here, "viewer/styles.css"), "utf8"),
    readFile(join(here, "card-app/styles.css"), "utf8"),
  ]);
  await writeFile(join(outDir, "index.html"), await page("viewer/index.html", viewer, viewerCss));
  await writeFile(join(outDir, "card-app.html"), await page("card-app/index.html", cardApp, cardCss));
  await writeFile(join(outDir, "bundled-packages.json"), `${JSON.stringify([...packages].sort(), null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildViewerAssets(process.argv[2] ?? join(here, "..", "dist", "viewer"));
}
