import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ProjectFiles } from "../../../ports/project-files.js";
import { checkFileParams } from "./file-params.js";
import { fileParamPolicy } from "./file-roots.js";
import { readProjectEnv } from "./project-env.js";
import { projectFingerprint } from "./project-fingerprint.js";
import { locateWorkflowProject } from "./project-location.js";
import { watchProjectFiles } from "./project-watch.js";

/**
 * The {@link ProjectFiles} port over node:fs (ARCH-7).
 *
 * @example
 * const files = createProjectFiles();
 * const location = await files.locate("/srv/project");
 */
export function createProjectFiles(): ProjectFiles {
  return {
    locate: locateWorkflowProject,
    readEnv: readProjectEnv,
    filePolicy: fileParamPolicy,
    checkFileParams,
    watch: watchProjectFiles,
    fingerprint: projectFingerprint,
    exists: (path) => existsSync(path),
    subfolders: (directory) =>
      existsSync(directory)
        ? readdirSync(directory, { withFileTypes: true })
            .filter((entry) => entry.isDirectory())
            .map((entry) => join(directory, entry.name))
        : [],
    makeDirectory: (directory) => void mkdirSync(directory, { recursive: true }),
    homeDir: () => homedir(),
  };
}
