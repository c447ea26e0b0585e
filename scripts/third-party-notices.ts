/**
 * Writes dist/THIRD_PARTY_NOTICES.md: the license of every package whose code the build copied
 * into dist/ (the MCP SDK and what it brings into the CLI bundle, drizzle-orm's SQLite side,
 * TypeBox, the viewer's Preact and htm). Their licenses (MIT, ISC, BSD, Apache-2.0) ask that a
 * copy of the code carries the license text and, for Apache-2.0, the NOTICE file; the packages
 * installed beside ours carry their own, the copies inside dist/ carry this file.
 *
 * Which packages: esbuild marks each module it inlines with a `// node_modules/<package>/…`
 * comment in the bundles tsup writes (not minified), and the viewer build lists the packages of
 * its minified pages in dist/viewer/bundled-packages.json (from esbuild's metafile). The text of
 * each comes from its folder in node_modules: package.json (name, version, license, author) and
 * its LICENSE/LICENCE/COPYING and NOTICE files — or, for a package that ships none (drizzle-orm),
 * the standard text of the license it names, from the SPDX license list.
 *
 * Run by `npm run build` after tsup and the viewer build:
 *   node --import tsx scripts/third-party-notices.ts [distDir] [rootDir]
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import spdxLicenses from "spdx-license-list/full.js";

/** Where the viewer build lists the packages it inlined (relative to dist/). */
export const VIEWER_PACKAGES_FILE = "viewer/bundled-packages.json";
/** The notices file, relative to dist/. */
export const NOTICES_FILE = "THIRD_PARTY_NOTICES.md";

const LICENSE_FILE = /^(licen[cs]e|copying)([.-].*)?$/i;
const NOTICE_FILE = /^notice([.-].*)?$/i;
// A path comment esbuild writes above each inlined module (`// node_modules/a/node_modules/@b/c/x.js`),
// at the start of a line or indented inside a wrapper.
const MODULE_COMMENT = /^[ \t]*\/\/ ((?:[^\s]*\/)?node_modules\/(?:@[^/\s]+\/)?[^/\s]+)\//gm;

/**
 * The package folder (relative to the repository, `/`-separated) of a module path that lies in
 * node_modules: the deepest `node_modules/<name>` or `node_modules/@scope/<name>` of it.
 *
 * @example
 * packageDirOf("node_modules/express/node_modules/debug/src/index.js") // "node_modules/express/node_modules/debug"
 */
export function packageDirOf(modulePath: string): string | undefined {
  const parts = modulePath.split(/[\\/]/);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0 || at + 1 >= parts.length) return undefined;
  const nameParts = parts[at + 1]!.startsWith("@") ? 2 : 1;
  if (at + nameParts >= parts.length) return undefined;
  return parts.slice(0, at + 1 + nameParts).join("/");
}

/** Every file under `dir` whose name ends in `.js`, `.cjs` or `.mjs`. */
function bundles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(c|m)?js$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The package folders (relative to `rootDir`) whose code is in `distDir`: from the bundles'
 * module comments and the viewer's list. Sorted, each once.
 *
 * @example
 * bundledPackageDirs("dist", ".") // ["node_modules/@hono/node-server", …]
 */
export function bundledPackageDirs(distDir: string, rootDir: string): string[] {
  const dirs = new Set<string>();
  for (const file of bundles(distDir)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(MODULE_COMMENT)) {
      const dir = packageDirOf(`${match[1]!}/x`);
      if (dir) dirs.add(dir);
    }
  }
  const listed = join(distDir, VIEWER_PACKAGES_FILE);
  if (existsSync(listed)) for (const dir of JSON.parse(readFileSync(listed, "utf8")) as string[]) dirs.add(dir);
  // A package that is not there (a comment naming a path of another machine) cannot be described.
  return [...dirs].filter((dir) => existsSync(join(rootDir, dir, "package.json"))).sort();
}

/** A fence that none of the text's lines starts with. */
function fenceFor(text: string): string {
  let fence = "```";
  while (text.split("\n").some((line) => line.trimStart().startsWith(fence))) fence += "`";
  return fence;
}

interface Manifest {
  name: string;
  version: string;
  license?: string | { type?: string };
  licenses?: Array<string | { type?: string }>;
  author?: string | { name?: string };
  homepage?: string;
}

/** The license a package.json names (SPDX expression, or the old `licenses` array), or "". */
function licenseOf(manifest: Manifest): string {
  if (typeof manifest.license === "string") return manifest.license;
  if (manifest.license?.type) return manifest.license.type;
  return (manifest.licenses ?? []).map((entry) => (typeof entry === "string" ? entry : entry.type ?? "")).filter(Boolean).join(" OR ");
}

/** One package's section: name, version, license, and its license and NOTICE files. */
function section(rootDir: string, dir: string): { name: string; version: string; text: string } {
  const folder = join(rootDir, dir);
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as Manifest;
  const license = licenseOf(manifest);
  const files = readdirSync(folder).filter((name) => LICENSE_FILE.test(name) || NOTICE_FILE.test(name)).sort();
  const lines = [`## ${manifest.name} ${manifest.version}`, "", `License: ${license || "not stated"}${manifest.homepage ? ` · ${manifest.homepage}` : ""}`, ""];
  if (files.length === 0) {
    const author = typeof manifest.author === "string" ? manifest.author : manifest.author?.name;
    lines.push(`The package ships no license file${author ? `; its author: ${author}` : ""}.`, "");
    // Its license's standard text, from the SPDX license list, when it names exactly one license.
    const standard = (spdxLicenses as Record<string, { name: string; licenseText: string } | undefined>)[license];
    if (standard) {
      const text = standard.licenseText.replace(/\r\n/g, "\n").trimEnd();
      const fence = fenceFor(text);
      lines.push(`The text of ${standard.name} (${license}), from the SPDX license list:`, "", `${fence}text`, text, fence, "");
    }
  }
  for (const name of files) {
    const text = readFileSync(join(folder, name), "utf8").replace(/\r\n/g, "\n").trimEnd();
    const fence = fenceFor(text);
    lines.push(`${name}:`, "", `${fence}text`, text, fence, "");
  }
  return { name: manifest.name, version: manifest.version, text: lines.join("\n") };
}

/**
 * The notices for `distDir`: one section per bundled package (same name and version once), in
 * name order.
 *
 * @example
 * const markdown = thirdPartyNotices("dist", ".");
 */
export function thirdPartyNotices(distDir: string, rootDir: string): string {
  const sections = new Map<string, { name: string; version: string; text: string }>();
  for (const dir of bundledPackageDirs(distDir, rootDir)) {
    const described = section(rootDir, dir);
    sections.set(`${described.name}@${described.version}`, described);
  }
  const key = (described: { name: string; version: string }) => `${described.name}\u0000${described.version}`;
  const ordered = [...sections.values()].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  return [
    "# Third-party notices",
    "",
    "steamharness's dist/ includes code of the packages below, copied in by its build (the CLI",
    "bundle, drizzle-orm's SQLite side, TypeBox and the viewer pages). Each is listed with its",
    "version, its license, and the license and notice files it ships. steamharness's own code is",
    "under the MIT license in LICENSE.",
    "",
    ...ordered.map((described) => described.text),
  ].join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const distDir = resolve(process.argv[2] ?? "dist");
  const rootDir = resolve(process.argv[3] ?? ".");
  const markdown = thirdPartyNotices(distDir, rootDir);
  writeFileSync(join(distDir, NOTICES_FILE), `${markdown}\n`);
  const count = (markdown.match(/^## /gm) ?? []).length;
  process.stderr.write(`${relative(rootDir, join(distDir, NOTICES_FILE))}: ${count} packages\n`);
}
