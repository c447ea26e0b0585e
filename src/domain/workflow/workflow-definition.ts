import type { TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import type { JsonValue } from "../json.js";
import { paramSchema } from "./param-schema.js";
import { WorkflowParamSchema, type InferWorkflowParams, type WorkflowParam, type WorkflowParamDeclaration } from "./param-types.js";
import type { WorkflowManifest } from "./project-manifest.js";
import { isTypeBoxObject, paramsFromTypeBox } from "./typebox-params.js";
import type { WorkflowRunContext, WorkflowRunResult } from "./run-context.js";
import type { ToolCatalogEntry } from "../node-context.js";
import { parseToolCatalog } from "../tool-catalog.js";
import { describeSchemaError } from "../schema-errors.js";
import { checkInputSchema, type WorkflowInputSchema } from "./input-schema.js";
import type { JsonObject } from "../json.js";
import { workflowPublications, type StructurePublications, type WorkflowPublicationDeclarations } from "./publications.js";

export { WorkflowParamSchema, type WorkflowParam } from "./param-types.js";

/** What `run` may return: a {@link WorkflowRunResult}, any other JSON value as the output, or nothing. */
export type WorkflowRunReturn = Promise<WorkflowRunResult | JsonValue | void> | WorkflowRunResult | JsonValue | void;

/** One entrypoint of a workflow: metadata, static params and the run function. */
export interface WorkflowEntrypoint<P = Record<string, unknown>> {
  title?: string;
  description?: string;
  params?: readonly WorkflowParamDeclaration[] | TObject;
  /**
   * MCP-3: the entrypoint's input as a JSON Schema 2020-12 object schema, instead of `params`
   * (not beside them), for what params cannot say (`$defs`/`$ref`, `allOf`/`anyOf`,
   * `if`/`then`/`else` …). Published unchanged as the MCP tool's `inputSchema`; every call's
   * arguments (MCP, `steamharness run`) are validated against it and reach `run` as its
   * `params`, as given (a `default` in the schema is not filled in). Only same-document `$ref`s.
   */
  inputSchema?: WorkflowInputSchema;
  /**
   * MCP-13: a run of this entrypoint cut short by the death of the host running it may be run
   * again under the same run id by another host serving the project (an MCP task's takeover).
   * Declare it only when running it again redoes nothing that must not be redone: its work goes
   * through agent nodes with durable sessions (committed model responses and tool results are
   * replayed; a `replay: "never"` tool caught mid-call is reported unknown, not run again) or is
   * otherwise idempotent. Default `false`: such a task is reported failed.
   */
  resumable?: boolean;
  /**
   * MCP-20: on the 2026-07-28 revision's tasks extension the server decides which call becomes a
   * task: a call of an entrypoint that declares `task` returns a task at once (read, answered and
   * cancelled from any host) when the client negotiated the extension; `"required"` refuses a
   * client without it (-32021), `"optional"` runs the call to its end for such a client. Without
   * it, a 2026-07-28 call always runs to its end. (2025-11-25 clients ask per call, as before.)
   */
  task?: "optional" | "required";
  /**
   * MCP-19 × MCP-20: with `task`, a 2026-07-28 call that negotiated the tasks extension first
   * runs as the call itself until the run asks for input, answered as an input round (no task
   * yet); the retry bringing the answers becomes the task, continuing the same run with them.
   * For a run that asks its questions (a name, a confirmation) before its long work.
   */
  askBeforeTask?: boolean;
  /**
   * MCP-7: a successful run whose output is a string answers that string as the MCP result's
   * first text block, before the JSON result `{ runId, status, entrypointId, entrypointTitle,
   * output }` (still the next text block and the `structuredContent`), for clients that read
   * only the first block. Default `false`: the JSON result is the only text block.
   */
  outputText?: boolean;
  run(params: P, context: WorkflowRunContext): WorkflowRunReturn;
}

/**
 * The default export of a workflow project's `main` module. A plain object fits: the loader
 * checks it at run time, so a project need not import steamharness.
 */
export interface WorkflowDefinition extends WorkflowPublicationDeclarations {
  entrypoints: Record<string, WorkflowEntrypoint<any>>;
  executor?: WorkflowExecutorDeclaration;
}

/**
 * The executor declaration of a workflow project (WF-2, CAP-3): `tools` is the host's tool
 * catalog (`executor.tools`) of every run — the capability and catalog tools an agent node of
 * the project may use, each `{ id, enabled?, autoApprove? }`. A tool absent from it fails
 * approval as "tool not registered".
 */
export interface WorkflowExecutorDeclaration {
  tools: readonly ToolCatalogEntry[];
}

/**
 * An entrypoint whose `run` receives the params inferred from its declarations `Ps` (DX-2).
 * `run` is a function property, so an annotation that does not match the declarations is an
 * error (method parameters would be checked bivariantly).
 */
export interface TypedWorkflowEntrypoint<Ps extends readonly WorkflowParamDeclaration[] | TObject> {
  title?: string;
  description?: string;
  params?: Ps;
  /** See {@link WorkflowEntrypoint.inputSchema} (`run` then receives `{}`-typed params: annotate them). */
  inputSchema?: WorkflowInputSchema;
  /** See {@link WorkflowEntrypoint.resumable}. */
  resumable?: boolean;
  /** See {@link WorkflowEntrypoint.task}. */
  task?: "optional" | "required";
  /** See {@link WorkflowEntrypoint.askBeforeTask}. */
  askBeforeTask?: boolean;
  /** See {@link WorkflowEntrypoint.outputText}. */
  outputText?: boolean;
  run: (params: InferWorkflowParams<Ps>, context: WorkflowRunContext) => WorkflowRunReturn;
}

// An entrypoint without `params` infers `unknown`: it receives `{}`. Otherwise the declarations
// are intersected with their constraint: the literal types of the constraint (`type`,
// `required: true`) keep the declarations' literals while `run` is contextually typed.
type DeclaredParams<Ps> = unknown extends Ps ? readonly [] : Ps extends TObject ? Ps : Ps & readonly WorkflowParamDeclaration[];

/** The type `defineWorkflow` gives a definition whose entrypoints declare the params `E[id]`. */
export interface TypedWorkflowDefinition<E> extends WorkflowPublicationDeclarations {
  entrypoints: { [K in keyof E]: TypedWorkflowEntrypoint<DeclaredParams<E[K]>> };
  executor?: WorkflowExecutorDeclaration;
}

/** An entrypoint as the structure report lists it (no code). */
export interface StructureEntrypoint {
  id: string;
  title: string;
  description: string;
  /** The static params (`[]` with an {@link inputSchema}). */
  params: WorkflowParam[];
  /** The declared JSON Schema 2020-12 input, when the entrypoint declares {@link WorkflowEntrypoint.inputSchema}. */
  inputSchema?: JsonObject;
  /** Present (`true`) when the entrypoint declares {@link WorkflowEntrypoint.resumable}. */
  resumable?: true;
  /** Present when the entrypoint declares {@link WorkflowEntrypoint.task}. */
  task?: "optional" | "required";
  /** Present (`true`) when the entrypoint declares {@link WorkflowEntrypoint.askBeforeTask}. */
  askBeforeTask?: true;
  /** Present (`true`) when the entrypoint declares {@link WorkflowEntrypoint.outputText}. */
  outputText?: true;
}

/**
 * `steamharness structure` output: the public, static contract of a project. `prompts`,
 * `resources` and `resourceTemplates` are present only when the definition declares them.
 */
export interface StructureReport extends StructurePublications {
  projectId: string;
  projectType: "workflow";
  name?: string;
  entrypoints: StructureEntrypoint[];
}

const ENTRYPOINT_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;

/**
 * Identity helper that gives a workflow definition its types (DX-2): each entrypoint's `run`
 * receives params inferred from its `params` declarations, without `as const` (see
 * {@link InferWorkflowParams}). It returns the definition unchanged; a project that does not
 * import steamharness can export the same plain object.
 *
 * @example
 * export default defineWorkflow({
 *   entrypoints: {
 *     greet: {
 *       params: [{ name: "name", type: "string", required: true }, { name: "times", type: "number" }],
 *       run: (params) => ({ greeting: `Hello, ${params.name}!`.repeat(params.times ?? 1) }), // params: { name: string; times?: number }
 *     },
 *   },
 * });
 */
export function defineWorkflow<const E>(definition: TypedWorkflowDefinition<E>): TypedWorkflowDefinition<E> {
  return definition;
}

function invalid(where: string, message: string, field?: string): SteamharnessError {
  return new SteamharnessError("input_validation", `${where}: ${message}`, field === undefined ? {} : { field });
}

/**
 * Checks a loaded module's default export and builds the structure report from it. Throws
 * `input_validation` naming the entrypoint and param at fault: no `entrypoints`, an id that is
 * not a valid MCP tool name, a missing `run`, a malformed or duplicate param — or the path of a
 * malformed prompt, resource or resource template (see {@link workflowPublications}).
 *
 * @example
 * const report = buildStructureReport(manifest, module.default);
 * report.entrypoints.map((e) => e.id) // ["summarize"]
 */
export function buildStructureReport(manifest: WorkflowManifest, definition: unknown, where = manifest.main): StructureReport {
  if (typeof definition !== "object" || definition === null) {
    throw invalid(where, "the default export must be a workflow definition object ({ entrypoints: { ... } })");
  }
  const entrypoints = (definition as { entrypoints?: unknown }).entrypoints;
  if (typeof entrypoints !== "object" || entrypoints === null || Array.isArray(entrypoints)) {
    throw invalid(where, "the default export has no `entrypoints` object");
  }
  workflowToolCatalog(definition, where);
  const report: StructureReport = { projectId: manifest.id, projectType: "workflow", entrypoints: [] };
  if (manifest.name !== undefined) report.name = manifest.name;
  for (const [id, raw] of Object.entries(entrypoints as Record<string, unknown>)) {
    report.entrypoints.push(structureEntrypoint(where, id, raw));
  }
  if (report.entrypoints.length === 0) throw invalid(where, "the workflow declares no entrypoints");
  return { ...report, ...workflowPublications(definition, where) };
}

/**
 * The tool catalog a workflow definition declares in `executor.tools` (WF-2), checked, with
 * `enabled` and `autoApprove` filled in; `[]` without an executor. Throws `input_validation`
 * naming the entry (`executor.tools[0].id`) for a malformed executor.
 *
 * @example
 * workflowToolCatalog({ entrypoints: {}, executor: { tools: [{ id: "workflow-kv_kv_store", autoApprove: true }] } })
 * // [{ id: "workflow-kv_kv_store", enabled: true, autoApprove: true }]
 */
export function workflowToolCatalog(definition: unknown, where = "workflow"): ToolCatalogEntry[] {
  const executor = (definition as { executor?: unknown } | null)?.executor;
  if (executor === undefined) return [];
  const prefix = `[steamharness] [workflow] ${where}:`;
  if (typeof executor !== "object" || executor === null || Array.isArray(executor)) {
    throw new SteamharnessError("input_validation", `${prefix} executor must be an object { tools: [...] }`, { field: "executor" });
  }
  const extra = Object.keys(executor).filter((key) => key !== "tools");
  if (extra.length > 0) {
    throw new SteamharnessError("input_validation", `${prefix} executor.${extra[0]}: unknown property (a workflow executor declares only tools)`, { field: `executor.${extra[0]}` });
  }
  return parseToolCatalog((executor as { tools?: unknown }).tools, "executor.tools", prefix);
}

// Params declared as a TypeBox object are listed like declared ones (null when not TypeBox).
function typeBoxParams(at: string, declared: unknown): WorkflowParam[] | null {
  if (!isTypeBoxObject(declared)) return null;
  try {
    return paramsFromTypeBox(declared);
  } catch (error) {
    throw invalid(at, `params ${(error as Error).message}`, "params");
  }
}

function structureEntrypoint(where: string, id: string, raw: unknown): StructureEntrypoint {
  const at = `${where} entrypoint ${JSON.stringify(id)}`;
  if (!ENTRYPOINT_ID.test(id)) throw invalid(at, "ids use letters, digits, '_', '-' and '.' (at most 64), as MCP tool names require", "entrypoints");
  if (typeof raw !== "object" || raw === null) throw invalid(at, "must be an object with a run function");
  const entry = raw as Record<string, unknown>;
  if (typeof entry.run !== "function") throw invalid(at, "has no run(params, context) function", "run");
  for (const key of ["title", "description"] as const) {
    if (entry[key] !== undefined && typeof entry[key] !== "string") throw invalid(at, `${key} must be a string`, key);
  }
  if (entry.task !== undefined && entry.task !== "optional" && entry.task !== "required") throw invalid(at, 'task must be "optional" or "required"', "task");
  for (const key of ["resumable", "askBeforeTask", "outputText"] as const) {
    if (entry[key] !== undefined && typeof entry[key] !== "boolean") throw invalid(at, `${key} must be a boolean`, key);
  }
  let inputSchema: JsonObject | undefined;
  if (entry.inputSchema !== undefined) {
    if (entry.params !== undefined) throw invalid(at, "declares both params and inputSchema (declare one: the schema is the whole input)", "inputSchema");
    const checked = checkInputSchema(entry.inputSchema);
    if ("refused" in checked) throw invalid(at, `inputSchema ${checked.refused}`, "inputSchema");
    inputSchema = checked.schema;
  }
  const params = typeBoxParams(at, entry.params) ?? entry.params ?? [];
  if (!Array.isArray(params)) throw invalid(at, "params must be an array or a TypeBox Type.Object", "params");
  const seen = new Set<string>();
  const headers = new Set<string>();
  const checked: WorkflowParam[] = params.map((param, index) => {
    if (!Value.Check(WorkflowParamSchema, param)) {
      const first = Value.Errors(WorkflowParamSchema, param).First();
      const path = first ? `${first.path || "/"}: ${describeSchemaError(first)}` : "malformed";
      throw invalid(at, `param #${index + 1} is invalid (${path})`, "params");
    }
    const typed = param as WorkflowParam;
    if (seen.has(typed.name)) throw invalid(at, `param ${JSON.stringify(typed.name)} is declared twice`, "params");
    seen.add(typed.name);
    if (typed.header !== undefined) {
      // SEP-2243 admits header mirrors on single primitive values only (numbers excluded: their text is not canonical).
      if (!["string", "positional", "integer", "boolean"].includes(typed.type) || typed.multiple === true) {
        throw invalid(at, `param ${JSON.stringify(typed.name)} cannot declare a header: only single string, positional, integer and boolean params can`, "params");
      }
      if (headers.has(typed.header.toLowerCase())) throw invalid(at, `header ${JSON.stringify(typed.header)} is declared twice (header names ignore case)`, "params");
      headers.add(typed.header.toLowerCase());
    }
    if (typed.type === "checkboxes" && !(typed.options && typed.options.length > 0)) {
      throw invalid(at, `checkboxes param ${JSON.stringify(typed.name)} needs static options`, "params");
    }
    // The worker passes a default to run as is, so it must fit the param like an argument does.
    if (typed.default !== undefined) {
      const schema = paramSchema(typed);
      if (!Value.Check(schema, typed.default)) {
        const first = Value.Errors(schema, typed.default).First();
        const why = first ? `${first.path ? `${first.path}: ` : ""}${describeSchemaError(first)}` : "does not fit the param";
        throw invalid(at, `the default of param ${JSON.stringify(typed.name)} does not fit its type (${why})`, "params");
      }
    }
    return typed;
  });
  return {
    id,
    title: typeof entry.title === "string" && entry.title !== "" ? entry.title : id,
    description: typeof entry.description === "string" ? entry.description : "",
    params: checked,
    ...(inputSchema !== undefined ? { inputSchema } : {}),
    ...(entry.resumable === true ? { resumable: true as const } : {}),
    ...(entry.task !== undefined ? { task: entry.task as "optional" | "required" } : {}),
    ...(entry.askBeforeTask === true ? { askBeforeTask: true as const } : {}),
    ...(entry.outputText === true ? { outputText: true as const } : {}),
  };
}
