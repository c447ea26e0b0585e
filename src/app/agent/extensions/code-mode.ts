import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../../../domain/agent-tool.js";
import { SteamharnessError, type SteamharnessErrorCode } from "../../../domain/errors.js";
import type { JsonObject, JsonValue } from "../../../domain/json.js";
import type { CodeSandbox, CodeSandboxFailureKind } from "../../../ports/code-sandbox.js";
import type { ModelToolSpec } from "../../../ports/model-provider.js";
import type { AgentCodeModeOptions } from "./types.js";

/** The name of the code-mode feature tool (AG-6: an explicit permission list must declare it). */
export const CODEMODE = "codemode";

/** Limits of a snippet when the options give none. */
export const CODEMODE_DEFAULTS = { timeoutMs: 30_000, memoryBytes: 64 * 1024 * 1024, maxOutputChars: 20_000, maxToolCalls: 50 } as const;

/** The outcome of one nested tool call, as the agent loop produced (or replayed) it. */
export interface NestedOutcome {
  isError: boolean;
  text: string;
}

/** Runs the n-th nested call of a snippet through the run's approval chain, durably (see turn-extensions). */
export type NestedCallRunner = (parentToolCallId: string, index: number, name: string, args: JsonObject) => Promise<NestedOutcome>;

const IDENT = /^[A-Za-z_$][\w$]*$/;

/** A TypeScript type for a JSON Schema (the subset tool schemas use); `unknown` for the rest. */
function tsType(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== "object" || depth > 4) return "unknown";
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum.map((value) => JSON.stringify(value)).join(" | ") || "never";
  if ("const" in s) return JSON.stringify(s.const);
  for (const key of ["anyOf", "oneOf"] as const) if (Array.isArray(s[key])) return (s[key] as unknown[]).map((part) => tsType(part, depth + 1)).join(" | ");
  switch (s.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `Array<${tsType(s.items, depth + 1)}>`;
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      const fields = Object.entries(properties).map(([key, value]) => {
        const description = (value as { description?: unknown })?.description;
        const note = typeof description === "string" ? ` /** ${description.replace(/\*\//g, "* /")} */` : "";
        return `${note} ${IDENT.test(key) ? key : JSON.stringify(key)}${required.has(key) ? "" : "?"}: ${tsType(value, depth + 1)};`;
      });
      if (fields.length === 0) return s.additionalProperties ? `Record<string, ${tsType(s.additionalProperties, depth + 1)}>` : "{}";
      return `{${fields.join("")} }`;
    }
    default:
      return "unknown";
  }
}

/**
 * The `.d.ts`-style description of the tools a snippet may call: one async function per tool,
 * with its description and its parameters as a TypeScript type.
 *
 * @example
 * describeCallableTools([{ name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }]);
 * // "declare const tools: {\n  /** Read a file *\/\n  read(args: { path: string; }): Promise<any>;\n};"
 */
export function describeCallableTools(specs: readonly ModelToolSpec[]): string {
  const lines = specs.map((spec) => `  /** ${spec.description.replace(/\*\//g, "* /").replace(/\s+/g, " ").trim()} */\n  ${IDENT.test(spec.name) ? spec.name : JSON.stringify(spec.name)}(args: ${tsType(spec.parameters)}): Promise<any>;`);
  return `declare const tools: {\n${lines.join("\n")}\n};`;
}

const CodeModeParams = Type.Object({
  code: Type.String({ minLength: 1, description: "JavaScript: the body of an async function. `await tools.<name>(args)` calls a tool; `return` gives the result." }),
});

const FAILURE_CODES: Record<CodeSandboxFailureKind, SteamharnessErrorCode> = { error: "input_validation", timeout: "timeout", memory: "unavailable", output: "input_validation", cancelled: "cancelled" };
const FAILURE_LABELS: Record<CodeSandboxFailureKind, string> = { error: "the snippet failed", timeout: "wall time limit", memory: "memory limit", output: "output limit", cancelled: "cancelled" };

const parseResult = (text: string): JsonValue => {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
};

/**
 * The `codemode` tool (EXT-4): the model sends a JavaScript snippet that runs in the QuickJS/wasm
 * sandbox (no network, filesystem, `process` or modules), where the run's authorized tools are
 * async functions (`tools.<name>(args)`, described in the tool's description). Every nested call
 * goes through `runNested` — the same approvals as a direct call, recorded durably — and resolves
 * the tool's result (parsed JSON when it is JSON) or throws its error text. A violated limit or a
 * failing snippet is a tool error naming the limit. Safe to repeat: a repeat replays the nested
 * calls already recorded.
 *
 * @example
 * const tool = createCodeModeTool(callableSpecs, {}, runNested, () => context.runtime.codeSandbox());
 */
export function createCodeModeTool(callable: readonly ModelToolSpec[], options: AgentCodeModeOptions, runNested: NestedCallRunner, loadSandbox: () => Promise<CodeSandbox>): AgentTool {
  const names = callable.map((spec) => spec.name);
  const limits = {
    timeoutMs: options.timeoutMs ?? CODEMODE_DEFAULTS.timeoutMs,
    memoryBytes: options.memoryBytes ?? CODEMODE_DEFAULTS.memoryBytes,
    maxOutputChars: options.maxOutputChars ?? CODEMODE_DEFAULTS.maxOutputChars,
  };
  const maxToolCalls = options.maxToolCalls ?? CODEMODE_DEFAULTS.maxToolCalls;
  const tool: AgentTool<typeof CodeModeParams> = {
    name: CODEMODE,
    label: "Run code",
    description:
      "Run a JavaScript snippet (the body of an async function) in a sandbox without network, filesystem or process. " +
      `Use it to chain several tool calls in one step (loops, conditions, combining results). Limits: ${limits.timeoutMs} ms, ` +
      `${Math.round(limits.memoryBytes / 1024 / 1024)} MiB, ${limits.maxOutputChars} characters of output, ${maxToolCalls} tool calls. ` +
      "Each tool call needs the same approval as a direct call. `console.log` output and the returned value come back to you.\n" +
      describeCallableTools(callable),
    parameters: CodeModeParams,
    replay: "safe",
    async execute(toolCallId, params, signal) {
      const { code } = params as { code: string };
      const sandbox = await loadSandbox();
      let index = 0;
      const result = await sandbox.run({
        code,
        functions: names,
        limits,
        ...(signal ? { signal } : {}),
        async call(name, args) {
          if (!names.includes(name)) return { ok: false, message: `[tool_not_registered] ${name} cannot be called from codemode` };
          if (index >= maxToolCalls) return { ok: false, message: `[codemode] the snippet made more than ${maxToolCalls} tool calls` };
          if (args === null || typeof args !== "object" || Array.isArray(args)) return { ok: false, message: `[input_validation] the arguments of ${name} must be an object` };
          const outcome = await runNested(toolCallId, index++, name, args);
          return outcome.isError ? { ok: false, message: outcome.text } : { ok: true, value: parseResult(outcome.text) };
        },
      });
      if (!result.ok) {
        const logs = result.logs.length > 0 ? `\nconsole output before it stopped:\n${result.logs.join("\n").slice(0, 2000)}` : "";
        throw new SteamharnessError(FAILURE_CODES[result.kind], `[codemode] ${FAILURE_LABELS[result.kind]}: ${result.message}${logs}`, { data: { kind: result.kind, toolCalls: index } });
      }
      const text = [`result: ${JSON.stringify(result.value)}`, ...(result.logs.length > 0 ? ["console:", ...result.logs] : [])].join("\n");
      return { content: [{ type: "text", text }], details: { codemode: { toolCalls: index, result: result.value } } };
    },
  };
  return tool as AgentTool;
}
