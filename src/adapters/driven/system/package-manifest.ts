import { readFileSync } from "node:fs";

/** The fields of steamharness's own package.json that the CLI reads (its version, the ranges `init` writes). */
export interface PackageManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * steamharness's own package.json, found one level above the running module (dist/ in an
 * install, four levels up from src/adapters/driven/system/ in the sources), or `null` when neither candidate is it.
 *
 * @example
 * readPackageManifest()?.version // "0.1.0"
 */
export function readPackageManifest(moduleUrl: string = import.meta.url): PackageManifest | null {
  for (const relative of ["../package.json", "../../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, moduleUrl), "utf8")) as Partial<PackageManifest>;
      if (pkg.name === "steamharness" && typeof pkg.version === "string") return pkg as PackageManifest;
    } catch {
      // try the next candidate
    }
  }
  return null;
}
