import { relative, resolve, sep } from "node:path";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { TextFiles } from "../../../../ports/text-files.js";

// DX-7: `init --steamharness-from <tarball|dir>` points the scaffold's steamharness dependency at
// a packed tarball (`npm pack`) or a local checkout, for use before the package is on a registry.

/** What `--steamharness-from` resolved to: the `file:` spec to write, and a note for the user when a checkout is not built. */
export interface SteamharnessSource {
  spec: string;
  note?: string;
}

/**
 * The `file:` dependency spec for a steamharness tarball or checkout, relative to the project
 * folder (as `npm install <path>` writes it) or absolute when that is shorter. A tarball must be a `.tgz` / `.tar.gz` file; a
 * folder must hold steamharness's package.json. Anything else is `input_validation` (exit code 2),
 * checked before init writes anything.
 *
 * @example
 * (await steamharnessSource("../steamharness-0.1.0.tgz", "my-workflow", services.textFiles)).spec // "file:../../steamharness-0.1.0.tgz"
 */
export async function steamharnessSource(from: string, projectDirectory: string, files: TextFiles): Promise<SteamharnessSource> {
  const source = resolve(from);
  const kind = await files.kind(source);
  if (kind === null) throw new SteamharnessError("input_validation", `--steamharness-from ${from}: no such file or folder`, { field: "steamharness-from" });
  // Relative to the project folder (as `npm install <path>` writes it) unless the absolute path is shorter.
  const spec = (path: string) => {
    const fromProject = relative(resolve(projectDirectory), path).split(sep).join("/") || ".";
    return `file:${fromProject.length <= path.length ? fromProject : path}`;
  };
  if (kind === "file") {
    if (!/\.(tgz|tar\.gz)$/.test(source)) throw new SteamharnessError("input_validation", `--steamharness-from ${from} is a file but not a tarball (.tgz, as npm pack writes it)`, { field: "steamharness-from" });
    return { spec: spec(source) };
  }
  let name: unknown;
  try {
    name = (JSON.parse(await files.read(resolve(source, "package.json"))) as { name?: unknown }).name;
  } catch {
    name = undefined;
  }
  if (name !== "steamharness") throw new SteamharnessError("input_validation", `--steamharness-from ${from} is not a steamharness checkout (its package.json does not name "steamharness")`, { field: "steamharness-from" });
  const built = (await files.kind(resolve(source, "dist", "index.js"))) !== null;
  return { spec: spec(source), ...(built ? {} : { note: `${source} has no dist/ yet: run \`npm run build\` there before \`npm install\`` }) };
}
