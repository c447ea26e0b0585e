/**
 * What a workflow definition may publish beside its entrypoints (WF-1, MCP-15): prompt
 * templates, static resources and resource templates. `steamharness mcp` serves them as MCP
 * prompts, resources and completions; the structure report lists them. Declarations are plain
 * data (no functions), so the structure report — and the MCP catalog cache — carry them whole.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import { describeSchemaError } from "../schema-errors.js";
import { matchUriTemplate, placeholdersOf, projectFileProblem, uriTemplateProblem } from "./publication-text.js";

/** One argument of a prompt: `{name}` in the prompt's texts is replaced by its value. */
export interface WorkflowPromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required?: boolean;
  /** Static values `completion/complete` offers (prefix match); the argument still accepts any string. */
  readonly options?: readonly string[];
}

/**
 * The content of one prompt message: text (with `{argument}` placeholders), an image read from a
 * project file, or one of the project's resources embedded by URI (placeholders allowed, e.g.
 * `"{resourceUri}"`).
 */
export type WorkflowPromptContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly file: string; readonly mimeType?: string }
  | { readonly type: "resource"; readonly uri: string };

/** One message of a prompt. */
export interface WorkflowPromptMessage {
  readonly role: "user" | "assistant";
  readonly content: WorkflowPromptContent;
}

/** A prompt template (MCP `prompts/list`, `prompts/get`), keyed by its name in `prompts`. */
export interface WorkflowPromptDeclaration {
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly WorkflowPromptArgument[];
  /**
   * MCP-19: what the prompt asks the person when it is got (a form of text fields): each answer
   * fills its `{name}` placeholders like an argument. A 2026-07-28 client gets the revision's
   * input-required result and retries with the answer; a 2025-11-25 client is sent
   * `elicitation/create`.
   */
  readonly ask?: { readonly message: string; readonly fields: readonly WorkflowPromptArgument[] };
  readonly messages: readonly WorkflowPromptMessage[];
}

/**
 * A static resource (MCP `resources/list`, `resources/read`): exactly one of `text`, `blob`
 * (Base64) or `file` (a project-relative path read at request time, which must stay inside the
 * project folder; a subscribed client is told when it changes).
 */
export interface WorkflowResourceDeclaration {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly text?: string;
  readonly blob?: string;
  readonly file?: string;
}

/**
 * A resource template (MCP `resources/templates/list`): an RFC 6570 level-1 URI template
 * (`docs://item/{id}`); reading a matching URI answers `text` with each `{variable}` replaced by
 * its value. `options` are static values per variable for `completion/complete`.
 */
export interface WorkflowResourceTemplateDeclaration {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly text: string;
  readonly options?: Readonly<Record<string, readonly string[]>>;
}

/** The publications of a workflow definition (its `prompts`, `resources` and `resourceTemplates`). */
export interface WorkflowPublicationDeclarations {
  prompts?: Record<string, WorkflowPromptDeclaration>;
  resources?: readonly WorkflowResourceDeclaration[];
  resourceTemplates?: readonly WorkflowResourceTemplateDeclaration[];
}

/** A prompt as the structure report lists it: its name, and title and description filled in. */
export interface StructurePrompt extends WorkflowPromptDeclaration {
  name: string;
  title: string;
  description: string;
  arguments: WorkflowPromptArgument[];
}

/** The publications of a structure report; each key only when the definition declares it. */
export interface StructurePublications {
  prompts?: StructurePrompt[];
  resources?: WorkflowResourceDeclaration[];
  resourceTemplates?: WorkflowResourceTemplateDeclaration[];
}

/** The longest inline `text` or `blob` a declaration may carry (it travels in the structure report). */
export const MAX_INLINE_CONTENT_CHARS = 1024 * 1024;

const NAME = "^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$";
const Text = Type.String({ maxLength: MAX_INLINE_CONTENT_CHARS });
const MimeType = Type.String({ minLength: 1 });
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;
const Options = Type.Array(Type.String({ maxLength: 500 }), { maxItems: 10_000 });
const strict = { additionalProperties: false };

const PromptArgumentSchema = Type.Object({ name: Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$" }), description: Type.Optional(Type.String()), required: Type.Optional(Type.Boolean()), options: Type.Optional(Options) }, strict);

const PromptSchema = Type.Object(
  {
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    arguments: Type.Optional(Type.Array(PromptArgumentSchema)),
    ask: Type.Optional(Type.Object({ message: Type.String({ minLength: 1 }), fields: Type.Array(PromptArgumentSchema, { minItems: 1 }) }, strict)),
    messages: Type.Array(
      Type.Object(
        {
          role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]),
          content: Type.Union([
            Type.Object({ type: Type.Literal("text"), text: Text }, strict),
            Type.Object({ type: Type.Literal("image"), file: Type.String({ minLength: 1 }), mimeType: Type.Optional(MimeType) }, strict),
            Type.Object({ type: Type.Literal("resource"), uri: Type.String({ minLength: 1 }) }, strict),
          ]),
        },
        strict,
      ),
      { minItems: 1 },
    ),
  },
  strict,
);

const described = { name: Type.String({ minLength: 1 }), title: Type.Optional(Type.String()), description: Type.Optional(Type.String()), mimeType: Type.Optional(MimeType) };

const ResourceSchema = Type.Object(
  { uri: Type.String({ minLength: 1 }), ...described, text: Type.Optional(Text), blob: Type.Optional(Type.String({ maxLength: MAX_INLINE_CONTENT_CHARS })), file: Type.Optional(Type.String({ minLength: 1 })) },
  strict,
);

const ResourceTemplateSchema = Type.Object({ uriTemplate: Type.String({ minLength: 1 }), ...described, text: Text, options: Type.Optional(Type.Record(Type.String(), Options)) }, strict);

function invalid(where: string, path: string, message: string): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] [workflow] ${where}: ${path}: ${message}`, { field: path });
}

/** `path` plus a TypeBox JSON pointer (`/messages/0/content`) as `path.messages[0].content`. */
function at(path: string, pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : `${out}.${part}`), path);
}

function check(schema: TSchema, value: unknown, where: string, path: string): void {
  if (Value.Check(schema, value)) {
    const mimeType = (value as { mimeType?: string }).mimeType;
    if (mimeType !== undefined && !MIME_TYPE.test(mimeType)) throw invalid(where, `${path}.mimeType`, `${JSON.stringify(mimeType)} is not a MIME type such as text/plain or image/png`);
    return;
  }
  const first = Value.Errors(schema, value).First();
  throw invalid(where, first ? at(path, first.path) : path, first ? describeSchemaError(first) : "malformed");
}

function checkedPrompts(raw: unknown, where: string, resources: readonly WorkflowResourceDeclaration[], templates: readonly WorkflowResourceTemplateDeclaration[]): StructurePrompt[] {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw invalid(where, "prompts", "must be an object of prompt declarations keyed by name");
  return Object.entries(raw as Record<string, unknown>).map(([name, prompt]) => {
    const path = `prompts.${name}`;
    if (!new RegExp(NAME).test(name)) throw invalid(where, path, "prompt names use letters, digits, '_', '-' and '.' (at most 64)");
    check(PromptSchema, prompt, where, path);
    const declared = prompt as WorkflowPromptDeclaration;
    const names = new Set<string>();
    for (const [index, argument] of (declared.arguments ?? []).entries()) {
      if (names.has(argument.name)) throw invalid(where, `${path}.arguments[${index}].name`, `argument ${JSON.stringify(argument.name)} is declared twice`);
      names.add(argument.name);
    }
    // An asked value fills placeholders like an argument, so the two share one set of names.
    for (const [index, field] of (declared.ask?.fields ?? []).entries()) {
      if (names.has(field.name)) throw invalid(where, `${path}.ask.fields[${index}].name`, `${JSON.stringify(field.name)} is already an argument or asked field of this prompt`);
      names.add(field.name);
    }
    declared.messages.forEach(({ content }, index) => {
      const here = `${path}.messages[${index}].content`;
      if (content.type === "image") {
        const problem = projectFileProblem(content.file);
        if (problem) throw invalid(where, `${here}.file`, problem);
        if (content.mimeType !== undefined && !MIME_TYPE.test(content.mimeType)) throw invalid(where, `${here}.mimeType`, `${JSON.stringify(content.mimeType)} is not a MIME type such as image/png`);
      }
      // A URI without placeholders is checked now; one built from arguments when the prompt is got.
      if (content.type === "resource" && placeholdersOf(content.uri).every((used) => !names.has(used))) {
        const known = resources.some((resource) => resource.uri === content.uri) || templates.some((template) => matchUriTemplate(template.uriTemplate, content.uri));
        if (!known) throw invalid(where, `${here}.uri`, `${JSON.stringify(content.uri)} is none of the project's resources`);
      }
    });
    return { ...declared, name, title: declared.title || name, description: declared.description ?? "", arguments: [...(declared.arguments ?? [])] };
  });
}

function checkedResources(raw: unknown, where: string): WorkflowResourceDeclaration[] {
  if (!Array.isArray(raw)) throw invalid(where, "resources", "must be an array of resource declarations");
  const seen = new Set<string>();
  return raw.map((resource, index) => {
    const path = `resources[${index}]`;
    check(ResourceSchema, resource, where, path);
    const declared = resource as WorkflowResourceDeclaration;
    const sources = (["text", "blob", "file"] as const).filter((key) => declared[key] !== undefined);
    if (!URI.test(declared.uri)) throw invalid(where, `${path}.uri`, `${JSON.stringify(declared.uri)} is not a URI with a scheme (e.g. docs://readme)`);
    if (sources.length !== 1) throw invalid(where, path, `declares ${sources.length === 0 ? "no content" : sources.join(" and ")}: give exactly one of text, blob (Base64) or file`);
    if (declared.blob !== undefined && !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(declared.blob)) throw invalid(where, `${path}.blob`, "is not Base64 (A–Z, a–z, 0–9, + and /, padded with = to a multiple of 4)");
    if (declared.file !== undefined) {
      const problem = projectFileProblem(declared.file);
      if (problem) throw invalid(where, `${path}.file`, problem);
    }
    if (seen.has(declared.uri)) throw invalid(where, `${path}.uri`, `${JSON.stringify(declared.uri)} is declared twice`);
    seen.add(declared.uri);
    return { ...declared };
  });
}

function checkedTemplates(raw: unknown, where: string): WorkflowResourceTemplateDeclaration[] {
  if (!Array.isArray(raw)) throw invalid(where, "resourceTemplates", "must be an array of resource template declarations");
  return raw.map((template, index) => {
    const path = `resourceTemplates[${index}]`;
    check(ResourceTemplateSchema, template, where, path);
    const declared = template as WorkflowResourceTemplateDeclaration;
    const problem = uriTemplateProblem(declared.uriTemplate);
    if (problem) throw invalid(where, `${path}.uriTemplate`, problem);
    const variables = placeholdersOf(declared.uriTemplate);
    for (const variable of Object.keys(declared.options ?? {})) {
      if (!variables.includes(variable)) throw invalid(where, `${path}.options.${variable}`, `is no variable of ${JSON.stringify(declared.uriTemplate)}`);
    }
    return { ...declared };
  });
}

/**
 * Checks the publications of a workflow definition (`prompts`, `resources`,
 * `resourceTemplates`) with TypeBox and the rules above; the structure report's keys, each only
 * when declared. Throws `input_validation` naming the path at fault (`prompts.greet.messages[0].content.file`).
 *
 * @example
 * workflowPublications({ entrypoints: {}, prompts: { hi: { messages: [{ role: "user", content: { type: "text", text: "Hi {who}" } }], arguments: [{ name: "who" }] } } })
 * // { prompts: [{ name: "hi", title: "hi", description: "", arguments: [{ name: "who" }], messages: [...] }] }
 */
export function workflowPublications(definition: object, where = "workflow"): StructurePublications {
  const raw = definition as { prompts?: unknown; resources?: unknown; resourceTemplates?: unknown };
  const out: StructurePublications = {};
  if (raw.resources !== undefined) out.resources = checkedResources(raw.resources, where);
  if (raw.resourceTemplates !== undefined) out.resourceTemplates = checkedTemplates(raw.resourceTemplates, where);
  if (raw.prompts !== undefined) out.prompts = checkedPrompts(raw.prompts, where, out.resources ?? [], out.resourceTemplates ?? []);
  return out;
}
