import type { AgentTool } from "../../../domain/agent-tool.js";
import { createBashTool } from "./bash-tool.js";
import { createFileTools } from "./file-tools.js";
import { createPathGuard } from "./path-guard.js";
import { createSearchTools } from "./search-tools.js";

import type { RuntimeCodingToolsOptions } from "../../../ports/runtime.js";

export { createPathGuard, type PathGuard } from "./path-guard.js";

/** Options of {@link createCodingTools}: the runtime port's (one definition, src/ports/runtime.ts). */
export type CodingToolsOptions = RuntimeCodingToolsOptions;

/**
 * The seven built-in coding tools (AG-6) in a fixed order: read, write, edit, bash, grep, find,
 * ls. File tools are confined to `workdir` plus `allowedDirectories`; which tools the model gets,
 * and which need approval, is decided by the agent's `permissionPolicy`.
 *
 * @example
 * const tools = createCodingTools({ workdir: "/tmp/project" });
 */
export function createCodingTools(options: CodingToolsOptions): AgentTool[] {
  const guard = createPathGuard({ workdir: options.workdir, ...(options.allowedDirectories ? { allowedDirectories: options.allowedDirectories } : {}) });
  const [read, write, edit, ls] = createFileTools(guard);
  const [find, grep] = createSearchTools(guard, options.grepTimeoutMs === undefined ? {} : { grepTimeoutMs: options.grepTimeoutMs });
  const bash = createBashTool({
    workdir: guard.workdir,
    ...(options.bashTimeoutMs === undefined ? {} : { timeoutMs: options.bashTimeoutMs }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.shell === undefined ? {} : { shell: options.shell }),
  });
  return [read!, write!, edit!, bash, grep!, find!, ls!];
}
