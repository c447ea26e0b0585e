import { AsyncLocalStorage } from "node:async_hooks";
import { approvedCallKey, registerApprovedCallProbe } from "../../domain/approval-gate.js";

/** The call the runtime approved and is running in this execution, with its approval port. */
const current = new AsyncLocalStorage<{ port: object; key: string }>();

registerApprovedCallProbe((port, toolId, args) => {
  const running = current.getStore();
  return running !== undefined && running.port === port && running.key === approvedCallKey(toolId, args);
});

/**
 * Runs `work` (a tool call the runtime has approved) so that the approval gate treats the same
 * tool and arguments, asked about on the same approval port from inside `work`, as approved: one
 * decision per call, however the host wires the tool's own `approve` (CAP-11). The decision is
 * bound to this execution (an `AsyncLocalStorage` context), not to the port as a whole: another
 * run making the identical call at the same moment on the same port is still asked. Resolves or
 * rejects with `work`.
 *
 * @example
 * const result = await withApprovedCall(context.toolPermissions, { name: "workflow-kv_kv_store", arguments: args }, () => tool.execute(id, args));
 */
export async function withApprovedCall<T>(port: object, call: { name: string; arguments: unknown }, work: () => Promise<T>): Promise<T> {
  // async: a `work` that throws before its first await still rejects, as it did before.
  return current.run({ port, key: approvedCallKey(call.name, call.arguments) }, work);
}
