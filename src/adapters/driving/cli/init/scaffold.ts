import { randomUUID } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { SteamharnessError } from "../../../../domain/errors.js";
import { isUuid } from "../../../../domain/workflow/project-manifest.js";
import type { TextFiles } from "../../../../ports/text-files.js";
import { mergeManifest } from "./merge-manifest.js";
import { scaffoldFiles, type ScaffoldKind, type ScaffoldValues } from "./templates.js";

/** Options of {@link scaffoldProject}. */
export interface ScaffoldOptions {
  kind: ScaffoldKind;
  /** The project folder; created when missing. */
  directory: string;
  /** Write into a non-empty folder, replacing files of the same names (each one is reported). */
  force?: boolean;
  /** The running steamharness's package.json: the dependency ranges come from it. */
  /** steamharness's own package.json (its version and dependency ranges), `null` when not found. */
  manifest: PackageManifest | null;
  /** The steamharness dependency spec instead of `^<version>` (e.g. `file:../steamharness-0.1.0.tgz`, DX-7). */
  steamharnessSpec?: string;
}

/** What {@link scaffoldProject} did. */
export interface ScaffoldResult {
  directory: string;
  projectId: string;
  /** Paths relative to the folder, in the order written. */
  created: string[];
  /** Files that existed and were replaced (only with `force`). */
  overwritten: string[];
  /** With `force` over an existing package.json: what merging the scaffold's manifest into it changed (DX-7). */
  manifestChanges?: string[];
}

// Used when the package.json at hand does not name a range (a source checkout without one).
const FALLBACK_RANGES = { tsx: "^4.19.0", typescript: "~5.9.0", typesNode: "^20.0.0" };

/**
 * The npm package name for a folder: lower case, characters npm allows, no leading dot or
 * underscore; `steamharness-<kind>` when nothing usable is left.
 *
 * @example
 * packageNameFor("/tmp/My Project", "workflow") // "my-project"
 */
export function packageNameFor(directory: string, kind: ScaffoldKind): string {
  const name = basename(resolve(directory))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[._-]+/, "")
    .replace(/-+$/, "")
    .slice(0, 214);
  return name || `steamharness-${kind}`;
}

/** The fields of steamharness's own package.json the scaffold reads (handed in: reading it is the composition root's, ARCH-9). */
export interface PackageManifest {
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * The dependency ranges a scaffold's package.json gets: steamharness at `^<running version>`,
 * tsx, TypeScript and @types/node at the ranges steamharness itself is built and run with.
 *
 * @example
 * dependencyRanges({ name: "steamharness", version: "0.1.0" }).steamharness // "^0.1.0"
 */
export function dependencyRanges(manifest: PackageManifest | null): ScaffoldValues["ranges"] {
  return {
    steamharness: manifest ? `^${manifest.version}` : "latest",
    tsx: manifest?.dependencies?.tsx ?? FALLBACK_RANGES.tsx,
    typescript: manifest?.devDependencies?.typescript ?? FALLBACK_RANGES.typescript,
    typesNode: manifest?.devDependencies?.["@types/node"] ?? FALLBACK_RANGES.typesNode,
  };
}

/**
 * Creates a workflow or conversation project in a folder (`steamharness init`). A folder that
 * holds anything but `.git` is refused with `input_validation` (exit code 2) unless `force` is
 * set; with `force`, files of the same names are replaced and listed in `overwritten`, except
 * an existing `package.json`, which is merged (the user's fields kept, ours added or set, the
 * changes in `manifestChanges`; a project `id` it already has is kept). A path that is a file,
 * or a `package.json` that is not a JSON object, is refused either way, before anything is written.
 *
 * @example
 * const result = await scaffoldProject({ kind: "workflow", directory: "hello", manifest: readPackageManifest() }, services.textFiles);
 * result.created // ["package.json", "tsconfig.json", "workflow.ts", …]
 */
export async function scaffoldProject(options: ScaffoldOptions, files: TextFiles): Promise<ScaffoldResult> {
  const directory = resolve(options.directory);
  const kind = await files.kind(directory);
  if (kind !== null) {
    if (kind !== "folder") {
      throw new SteamharnessError("input_validation", `${directory} is a file, not a folder`, { field: "dir" });
    }
    const present = (await files.list(directory)).filter((entry) => entry !== ".git");
    if (present.length > 0 && !options.force) {
      const listed = present.slice(0, 5).join(", ") + (present.length > 5 ? `, … (${present.length} entries)` : "");
      throw new SteamharnessError(
        "input_validation",
        `${directory} is not empty (${listed}); choose an empty or new folder, or pass --force to write into it (files of the same names are replaced)`,
        { field: "dir", data: { entries: present.length } },
      );
    }
  }
  const existing = await existingManifest(files, directory);
  const ranges = { ...dependencyRanges(options.manifest), ...(options.steamharnessSpec === undefined ? {} : { steamharness: options.steamharnessSpec }) };
  const keptId = typeof existing?.id === "string" && isUuid(existing.id) ? existing.id : undefined;
  const values: ScaffoldValues = { name: packageNameFor(directory, options.kind), id: keptId ?? randomUUID(), ranges };
  const result: ScaffoldResult = { directory, projectId: values.id, created: [], overwritten: [] };
  const written = Object.entries(scaffoldFiles(options.kind, values)).map(([path, text]): [string, string] => {
    if (path !== "package.json" || existing === undefined) return [path, text];
    const { manifest, changes } = mergeManifest(existing, JSON.parse(text) as Record<string, unknown>);
    result.manifestChanges = changes;
    return [path, `${JSON.stringify(manifest, null, 2)}\n`];
  });
  // Everything is checked before the first write, so a refusal leaves the folder as it was.
  for (const [path] of written) {
    const target = join(directory, path);
    const present = await files.kind(target);
    if (present === null) continue;
    if (present !== "file") throw new SteamharnessError("input_validation", `${target} exists and is not a file; the scaffold writes a file there`, { field: "dir" });
    result.overwritten.push(path);
  }
  for (const [path, text] of written) {
    const target = join(directory, path);
    await files.makeFolder(dirname(target));
    await files.write(target, text);
    result.created.push(path);
  }
  return result;
}

/** The folder's package.json as an object (to merge into), `undefined` when there is none. */
async function existingManifest(files: TextFiles, directory: string): Promise<Record<string, unknown> | undefined> {
  const path = join(directory, "package.json");
  if ((await files.kind(path)) !== "file") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await files.read(path));
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new SteamharnessError("input_validation", `${path} is not a JSON object, so it cannot be merged: fix or remove it, then run init again`, { field: "dir" });
  }
  return parsed as Record<string, unknown>;
}
