import { SteamharnessError } from "../errors.js";

/** The seven built-in coding tools (AG-6). */
export const BUILTIN_CODING_TOOLS = ["read", "write", "edit", "bash", "grep", "find", "ls"] as const;
export type BuiltinCodingToolName = (typeof BUILTIN_CODING_TOOLS)[number];

/** Session features an explicit permission list must declare to be available (AG-6). */
export const SESSION_FEATURE_TOOLS = ["update_plan", "subagent", "tool_search", "codemode"] as const;

/** Tools that only read: allowed by every preset. */
const READ_TOOLS: readonly string[] = ["read", "grep", "find", "ls"];

/**
 * Named permission policies for the built-in tools:
 * - `read-only`: read, grep, find, ls run; write, edit and bash are not offered.
 * - `workspace-write` (alias `workspace`): reading and file edits inside the workdir run
 *   without asking; bash asks a person (through `context.toolPermissions`).
 * - `ask` (default): reading runs; write, edit and bash each ask a person.
 * - `full`: every built-in tool runs without asking (file tools stay confined to the workdir).
 * `update_plan` and `ask_user` are always available with a preset.
 */
export type AgentPermissionPreset = "read-only" | "workspace-write" | "workspace" | "ask" | "full";

/**
 * An explicit permission list: every built-in tool and session feature the agent may use must be
 * named, in `allow` (runs) or `ask` (a person approves each call). Anything unnamed is not
 * offered; `update_plan` must be listed for plan mode (AG-6). `ask_user` is always available.
 */
export interface AgentPermissionList {
  allow?: string[];
  ask?: string[];
}

/** The `permissionPolicy` option (AG-3, AG-6). */
export type AgentPermissionPolicy = AgentPermissionPreset | AgentPermissionList;

/** What a policy says about one tool. `hidden`: not offered to the model at all. */
export type AgentToolAccess = "allow" | "ask" | "hidden";

/** The agent's run modes: `build` does the work, `plan` researches read-only and proposes a plan. */
export type AgentMode = "build" | "plan";

const PRESETS: Record<Exclude<AgentPermissionPreset, "workspace">, Record<string, AgentToolAccess>> = {
  "read-only": { write: "hidden", edit: "hidden", bash: "hidden" },
  "workspace-write": { write: "allow", edit: "allow", bash: "ask" },
  ask: { write: "ask", edit: "ask", bash: "ask" },
  full: { write: "allow", edit: "allow", bash: "allow" },
};

const KNOWN = new Set<string>([...BUILTIN_CODING_TOOLS, ...SESSION_FEATURE_TOOLS, "ask_user"]);

/**
 * Checks a policy and the mode together; throws `input_validation` for an unknown preset, an
 * unknown tool name in a list, or plan mode with a list that does not declare `update_plan`.
 *
 * @example
 * validatePermissionPolicy({ allow: ["read", "update_plan"] }, "plan");
 */
export function validatePermissionPolicy(policy: AgentPermissionPolicy, mode: AgentMode): void {
  if (typeof policy === "string") {
    if (policy !== "workspace" && !(policy in PRESETS)) {
      throw new SteamharnessError("input_validation", `unknown permissionPolicy "${policy}" (read-only, workspace-write, ask, full, or a list)`, { field: "permissionPolicy" });
    }
    return;
  }
  const names = [...(policy.allow ?? []), ...(policy.ask ?? [])];
  for (const name of names) {
    if (!KNOWN.has(name)) {
      throw new SteamharnessError("input_validation", `permissionPolicy names an unknown tool "${name}"`, { field: "permissionPolicy" });
    }
  }
  if (mode === "plan" && !names.includes("update_plan")) {
    throw new SteamharnessError("input_validation", "an explicit permission list must declare update_plan to run in plan mode", { field: "permissionPolicy" });
  }
}

/**
 * The access a policy gives a built-in tool or session feature in a mode. Plan mode never offers
 * write, edit or bash (it only researches and proposes).
 *
 * @example
 * toolAccess("workspace-write", "bash", "build") // "ask"
 */
export function toolAccess(policy: AgentPermissionPolicy, tool: string, mode: AgentMode): AgentToolAccess {
  if (mode === "plan" && (tool === "write" || tool === "edit" || tool === "bash")) return "hidden";
  if (tool === "ask_user") return "allow";
  if (typeof policy === "string") {
    if (tool === "update_plan") return "allow";
    if (READ_TOOLS.includes(tool)) return "allow";
    const preset = PRESETS[policy === "workspace" ? "workspace-write" : policy];
    return preset?.[tool] ?? "hidden";
  }
  if (policy.allow?.includes(tool)) return "allow";
  if (policy.ask?.includes(tool)) return tool === "update_plan" ? "allow" : "ask";
  return "hidden";
}
