/** The library's `createNodeContext`: the application's builder with the entry's runtime (ARCH-1). */
import type { NodeContext } from "../domain/node-context.js";
import { buildNodeContext, type NodeContextOptions } from "../app/node-context/node-context.js";
import { defaultRuntime } from "./runtime.js";

export type { NodeContextOptions };

/**
 * Builds a {@link NodeContext} with sensible defaults (WF-0): the approval and question ports
 * answer `pending`, usage goes to the storage, and models, sandbox, coding tools and session
 * defaults come from `options.runtime` (the library's runtime when absent).
 *
 * @example
 * const context = createNodeContext({ projectId: "demo", storage: createSqliteStorage({ directory }) });
 */
export function createNodeContext(options: NodeContextOptions): NodeContext {
  return buildNodeContext(options, options.runtime ?? defaultRuntime());
}
