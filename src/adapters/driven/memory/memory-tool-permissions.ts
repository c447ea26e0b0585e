import type { ToolPermissionDecision, ToolPermissionRequest, ToolPermissions } from "../../../ports/tool-permissions.js";
import { createStickyRequests } from "./sticky-requests.js";

/** Options of {@link createMemoryToolPermissions}. */
export interface MemoryToolPermissionsOptions {
  /**
   * Scripted decisions for requests that have none recorded yet. Defaults to `pending`, so a
   * person (the test, via `resolve`) decides.
   */
  decide?: (request: ToolPermissionRequest) => ToolPermissionDecision | Promise<ToolPermissionDecision>;
}

/** The in-memory approval adapter, with the host-side controls tests and simple hosts need. */
export interface MemoryToolPermissions extends ToolPermissions {
  /** Records the final decision for a request id; a later `request` with that id returns it. */
  resolve(requestId: string, decision: Exclude<ToolPermissionDecision, { outcome: "pending" }>): void;
  /** Every request received, in order (repeats included). */
  readonly requests: readonly ToolPermissionRequest[];
  /** Request ids asked but not yet decided. */
  pending(): string[];
}

/**
 * An in-memory tool-permissions adapter. Final decisions stick to their request id, so asking
 * again after a resume returns the same decision, and no decision applies to another id.
 *
 * @example
 * const permissions = createMemoryToolPermissions();
 * // run pauses with user_input_required (requestId) ...
 * permissions.resolve(requestId, { outcome: "approved" });
 */
export function createMemoryToolPermissions(options: MemoryToolPermissionsOptions = {}): MemoryToolPermissions {
  return createStickyRequests<ToolPermissionRequest, ToolPermissionDecision>(options.decide ?? (() => ({ outcome: "pending" })));
}
