import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ProjectFiles } from "../../../ports/project-files.js";
import { resolveDataDirs } from "./data-dirs.js";
import { checkFileParams } from "./file-params.js";
import { fileParamPolicy } from "./file-roots.js";
import { readProjectEnv } from "./project-env.js";
import { projectFingerprint } from "./project-fingerprint.js";
import { locateWorkflowProject } from "./project-location.js";
import { watchProjectFiles } from "./project-watch.js";

/**
 * The {@link ProjectFiles} port over node:fs (ARCH-7). `sessionFolderOf` is the session store's
 * rule for where a project's agent sessions live (SES-10), handed in by the composition root.
 *
 * @example
 * const files = createProjectFiles({ sessionFolderOf: agentStoreDirFor });
 * const location = await files.locate("/srv/project");
 */
export function createProjectFiles(options: { sessionFolderOf(projectDir: string, given?: string): string }): ProjectFiles {
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
    dataFolders({ sessionFolder, ...given }, projectDir) {
      // The use case's session folder is the layout's `--agent-store-dir`.
      const dirs = resolveDataDirs({ ...given, ...(sessionFolder === undefined ? {} : { agentStoreDir: sessionFolder }) }, { home: homedir(), agentStoreDirFor: options.sessionFolderOf }, projectDir);
      return { dirs, sessionFolder: dirs.agentStoreDir };
    },
  };
}
