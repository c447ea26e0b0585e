// DX-7: `steamharness init --force` over a folder that already has a package.json merges the
// scaffold's manifest into it instead of replacing it: the user's fields stay, the fields a
// steamharness project needs are added or set, and every change is listed.

type Manifest = Record<string, unknown>;

/** Fields the user's manifest keeps when it has them (the package's identity); the rest of ours is set. */
const KEPT_WHEN_PRESENT = new Set(["name", "version", "private", "description", "id"]);
/** Fields merged key by key (ours set, the user's other keys kept). */
const MERGED_BY_KEY = new Set(["scripts", "dependencies", "devDependencies"]);

const isObject = (value: unknown): value is Manifest => typeof value === "object" && value !== null && !Array.isArray(value);
const shown = (value: unknown): string => JSON.stringify(value);

/**
 * The scaffold's manifest (`ours`) merged into an existing one (`theirs`): identity fields the
 * user has (`name`, `version`, `private`, `description`, `id`) are kept, `scripts` and the
 * dependency maps are merged key by key (ours win), any other field of ours is set; the user's
 * other fields are kept in their order. `changes` lists each addition and replacement, e.g.
 * `type: "commonjs" → "module"` or `scripts.test added`.
 *
 * @example
 * mergeManifest({ name: "mine", type: "commonjs", author: "me" }, { name: "x", type: "module" })
 * // { manifest: { name: "mine", type: "module", author: "me" }, changes: ['type: "commonjs" → "module"'] }
 */
export function mergeManifest(theirs: Manifest, ours: Manifest): { manifest: Manifest; changes: string[] } {
  const manifest: Manifest = { ...theirs };
  const changes: string[] = [];
  const set = (path: string, target: Manifest, key: string, value: unknown) => {
    if (!(key in target)) changes.push(`${path} added`);
    else if (shown(target[key]) !== shown(value)) changes.push(`${path}: ${shown(target[key])} → ${shown(value)}`);
    target[key] = value;
  };
  for (const [key, value] of Object.entries(ours)) {
    if (KEPT_WHEN_PRESENT.has(key) && key in theirs) continue;
    if (MERGED_BY_KEY.has(key) && isObject(value) && isObject(theirs[key])) {
      const merged: Manifest = { ...(theirs[key] as Manifest) };
      for (const [inner, innerValue] of Object.entries(value)) set(`${key}.${inner}`, merged, inner, innerValue);
      manifest[key] = merged;
      continue;
    }
    set(key, manifest, key, value);
  }
  return { manifest, changes };
}
