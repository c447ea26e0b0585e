import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";

/** Confines file paths to the workdir and the allowed directories (AG-6). */
export interface PathGuard {
  /** The working directory, absolute. */
  readonly workdir: string;
  /**
   * The real absolute path of `target` (relative paths are taken from the workdir). Rejects with
   * `input_validation` when it, or the real location it resolves to through symlinks, lies outside
   * every root. A path that does not exist yet is checked through its nearest existing ancestor.
   */
  resolve(target: string): Promise<string>;
  /** A path for display: relative to the workdir when inside it. */
  display(absolute: string): string;
  /**
   * The real paths of the workdir and the allowed directories, for checking a path read back
   * from an opened descriptor (SEC-1). Rejects with `not_found` while a root does not exist.
   */
  realRoots(): Promise<readonly string[]>;
}

/**
 * Whether `candidate` is `root` or lies under it, by path segments: `..draft.md` is a name inside
 * the root; only a first segment `..` leaves it.
 */
export const inside = (root: string, candidate: string): boolean => {
  const relative = path.relative(root, candidate);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
};

async function realOrAncestor(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Builds a guard for `workdir` plus `allowedDirectories`. Both the lexical path (catching `..`
 * and absolute paths) and the real path (catching symlinks that point outside) must be inside a
 * root.
 *
 * @example
 * const guard = createPathGuard({ workdir: "/tmp/w" });
 * await guard.resolve("src/a.ts"); // "/tmp/w/src/a.ts"
 * await guard.resolve("../etc/passwd"); // rejects with input_validation
 */
export function createPathGuard(options: { workdir: string; allowedDirectories?: readonly string[] }): PathGuard {
  const workdir = path.resolve(options.workdir);
  const lexicalRoots = [workdir, ...(options.allowedDirectories ?? []).map((dir) => path.resolve(workdir, dir))];
  let realRoots: Promise<string[]> | null = null;
  const roots = (): Promise<string[]> => {
    realRoots ??= Promise.all(
      lexicalRoots.map(async (root) => {
        const info = await stat(root).catch(() => null);
        if (!info?.isDirectory()) throw new SteamharnessError("not_found", `[steamharness] [coding-tools] directory does not exist: ${root}`, { field: "workdir" });
        return realpath(root);
      }),
    ).catch((error: unknown) => {
      // Not cached: the directory may be created later.
      realRoots = null;
      throw error;
    });
    return realRoots;
  };
  const outside = (target: string): SteamharnessError =>
    new SteamharnessError("input_validation", `path is outside the workdir and allowed directories: ${target}`, { field: "path" });
  return {
    workdir,
    async resolve(target) {
      if (typeof target !== "string" || target === "") throw new SteamharnessError("input_validation", "path must be a non-empty string", { field: "path" });
      if (target.includes("\u0000")) throw outside(target);
      const absolute = path.resolve(workdir, target);
      if (!lexicalRoots.some((root) => inside(root, absolute))) throw outside(target);
      const real = await realOrAncestor(absolute);
      if (!(await roots()).some((root) => inside(root, real))) throw outside(target);
      return real;
    },
    display(absolute) {
      return inside(workdir, absolute) ? path.relative(workdir, absolute) || "." : absolute;
    },
    realRoots: roots,
  };
}
