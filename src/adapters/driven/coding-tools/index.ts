import type { AgentTool } from "../../../domain/agent-tool.js";
import { createBashTool } from "./bash-tool.js";
import { createFileTools } from "./file-tools.js";
import { createPathGuard } from "./path-guard.js";
import { createSearchTools } from "./search-tools.js";

export { createPathGuard, type PathGuard } from "./path-guard.js";

/** Options of {@link createCodingTools}. */
export interface CodingToolsOptions {
  workdir: string;
  allowedDirectories?: readonly string[];
  /** bash timeout in ms (default 120000). */
  bashTimeoutMs?: number;
  /** grep's hard deadline in ms (default 30000): the regex worker is terminated when it passes (SEC-3). */
  grepTimeoutMs?: number;
  /** bash's environment variables (see `BashToolOptions.env`). */
  env?: Readonly<Record<string, string>>;
  /** The shell bash commands run in (default `/bin/bash`). */
  shell?: string;
}

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
