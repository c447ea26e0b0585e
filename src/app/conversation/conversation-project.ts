/**
 * Conversation projects (CONV-1): a folder whose `package.json` holds `id` (an immutable UUID),
 * `projectType: "conversation"` and `main`, a `.js`, `.mjs` or `.ts` module whose default export
 * is a conversation executor (`defineAgentConversationExecutor(...)`, or the plain options object
 * it takes). The format sits beside the workflow format (WF-1); see docs/conversation-projects.md.
 */
import { isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SteamharnessError } from "../../domain/errors.js";
import { isUuid } from "../../domain/workflow/project-manifest.js";
import type { TextFiles } from "../../ports/text-files.js";
import { defineAgentConversationExecutor, type AgentConversationExecutor, type AgentConversationExecutorOptions } from "./define-executor.js";

/** What steamharness reads from a conversation project's `package.json`. */
export interface ConversationManifest {
  id: string;
  projectType: "conversation";
  /** The executor module, relative to the project folder: `.js`, `.mjs` or `.ts`. */
  main: string;
  name?: string;
  version?: string;
}

/** A conversation project: its manifest and its validated executor. */
export interface AgentConversationProject {
  manifest: ConversationManifest;
  executor: AgentConversationExecutor;
  /** The `package.json` of the project folder. */
  packageJson(): Record<string, unknown>;
}

/** A project loaded from a folder. */
export interface LoadedAgentConversationProject extends AgentConversationProject {
  directory: string;
  mainPath: string;
}

/** Options of {@link createAgentConversationProject}. */
export interface AgentConversationProjectOptions {
  /** The immutable project id, a UUID. */
  id: string;
  name?: string;
  version?: string;
  /** The executor module path in the folder (default `conversation.mjs`). */
  main?: string;
  executor: AgentConversationExecutor | AgentConversationExecutorOptions;
}

/**
 * Builds a conversation project (`projectType: "conversation"`) from an executor. Throws
 * `input_validation` for a non-UUID id, a bad `main` or an invalid executor.
 *
 * @example
 * const project = createAgentConversationProject({ id: randomUUID(), name: "assistant", executor });
 * await writeFile(join(dir, "package.json"), JSON.stringify(project.packageJson(), null, 2));
 */
export function createAgentConversationProject(options: AgentConversationProjectOptions): AgentConversationProject {
  const manifest = parseConversationManifest(
    { id: options.id, projectType: "conversation", main: options.main ?? "conversation.mjs", name: options.name, version: options.version },
    "project options",
  );
  const executor = defineAgentConversationExecutor(options.executor as AgentConversationExecutorOptions);
  return {
    manifest,
    executor,
    packageJson: () => ({
      ...(manifest.name === undefined ? {} : { name: manifest.name }),
      ...(manifest.version === undefined ? {} : { version: manifest.version }),
      private: true,
      type: "module",
      id: manifest.id,
      projectType: "conversation",
      main: manifest.main,
    }),
  };
}

const MAIN_EXTENSIONS = [".js", ".mjs", ".ts"];

/**
 * Validates a parsed `package.json` as a conversation project manifest. Throws `input_validation`
 * with `field` for a `projectType` other than `"conversation"` (a workflow project says so), a
 * missing or non-UUID `id`, or a `main` that is not a relative `.js`, `.mjs` or `.ts` path inside
 * the folder.
 *
 * @example
 * parseConversationManifest({ id: "0f6a3c2e-9d41-4b7a-8c55-1e2d3f4a5b6c", projectType: "conversation", main: "conversation.mjs" });
 */
export function parseConversationManifest(pkg: unknown, where = "package.json"): ConversationManifest {
  if (typeof pkg !== "object" || pkg === null || Array.isArray(pkg)) throw invalid("package.json", `${where} is not a JSON object`);
  const record = pkg as Record<string, unknown>;
  if (record.projectType !== "conversation") {
    const hint = record.projectType === "workflow" ? " (this is a workflow project: serve it with steamharness mcp or run)" : "";
    throw invalid("projectType", `${where} must have projectType "conversation", found ${JSON.stringify(record.projectType) ?? "none"}${hint}`);
  }
  if (!isUuid(record.id)) throw invalid("id", `${where} "id" must be an immutable UUID, found ${JSON.stringify(record.id) ?? "none"}`);
  const main = record.main;
  if (typeof main !== "string" || !MAIN_EXTENSIONS.some((ext) => main.endsWith(ext))) {
    throw invalid("main", `${where} "main" must name the executor module (.js, .mjs or .ts), found ${JSON.stringify(main) ?? "none"}`);
  }
  if (isAbsolute(main) || /^[A-Za-z]:[\\/]/.test(main) || relative(".", join(".", main)).startsWith("..")) {
    throw invalid("main", `${where} "main" must be a path inside the project folder, found ${JSON.stringify(main)}`);
  }
  const manifest: ConversationManifest = { id: record.id, projectType: "conversation", main };
  if (typeof record.name === "string") manifest.name = record.name;
  if (typeof record.version === "string") manifest.version = record.version;
  return manifest;
}

/**
 * Reads a conversation project folder: its `package.json` (through `files`, the root's, ARCH-9),
 * then its `main` module (TypeScript through tsx), whose default export must be a conversation
 * executor. Runs project code. The library's `loadAgentConversationProject` is this function on
 * the machine's files (src/compose/conversation-project.ts).
 *
 * @example
 * const project = await openConversationProject("./examples/assistant", services.textFiles);
 * const node = createAgentNode(project.executor.agent);
 */
export async function openConversationProject(directory: string, files: Pick<TextFiles, "read">): Promise<LoadedAgentConversationProject> {
  const root = resolve(directory);
  let text: string;
  try {
    text = await files.read(join(root, "package.json"));
  } catch (cause) {
    throw new SteamharnessError("input_validation", `[steamharness] [conversation] ${root} has no readable package.json`, { field: "directory", cause });
  }
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch (cause) {
    throw new SteamharnessError("input_validation", `[steamharness] [conversation] ${join(root, "package.json")} is not valid JSON`, { field: "package.json", cause });
  }
  const manifest = parseConversationManifest(pkg, join(root, "package.json"));
  const mainPath = join(root, manifest.main);
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(mainPath);
  } catch (cause) {
    throw new SteamharnessError("input_validation", `[steamharness] [conversation] cannot load ${mainPath}: ${(cause as Error)?.message ?? String(cause)}`, { field: "main", cause });
  }
  let exported = mod.default;
  if (exported && typeof exported === "object" && !("executor" in exported) && "default" in exported) exported = (exported as { default: unknown }).default;
  if (exported === undefined) throw invalid("main", `${mainPath} has no default export; export default defineAgentConversationExecutor({ ... })`);
  const project = createAgentConversationProject({ ...manifest, executor: exported as AgentConversationExecutorOptions });
  return { ...project, directory: root, mainPath };
}

async function importModule(mainPath: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(mainPath).href;
  if (mainPath.endsWith(".ts")) {
    // The module's own URL is the parent: the specifier is absolute, and the CJS bundle has no import.meta.url.
    const { tsImport } = await import("tsx/esm/api");
    return (await tsImport(url, url)) as Record<string, unknown>;
  }
  return (await import(url)) as Record<string, unknown>;
}

function invalid(field: string, message: string): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] [conversation] ${message}`, { field });
}
