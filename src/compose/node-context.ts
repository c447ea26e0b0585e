/** The library's `createNodeContext`: the application's builder with the host's runtime, or one built for this context (ARCH-1, ARCH-6). */
import type { NodeContext } from "../domain/node-context.js";
import { buildNodeContext, type NodeContextOptions } from "../app/node-context/node-context.js";
import { createHarnessRuntime } from "./runtime.js";

export type { NodeContextOptions };

/**
 * Builds a {@link NodeContext} with sensible defaults (WF-0): the approval and question ports
 * answer `pending`, usage goes to the storage, and models, sandbox, coding tools and session
 * defaults come from `options.runtime` (when absent, a runtime of the library's defaults built for
 * this context: pass one runtime to contexts that should share in-memory sessions).
 *
 * @example
 * const context = createNodeContext({ projectId: "demo", storage: createSqliteStorage({ directory }) });
 */
export function createNodeContext(options: NodeContextOptions): NodeContext {
  return buildNodeContext(options, options.runtime ?? createHarnessRuntime());
}
