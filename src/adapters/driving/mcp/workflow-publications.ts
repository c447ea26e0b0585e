/**
 * MCP prompts, resources and completions of a workflow project (MCP-15, WF-1): what its
 * definition declares in `prompts`, `resources` and `resourceTemplates`, served from the
 * structure report. Texts are filled in here (placeholders, URI templates); files are read from
 * the project folder at request time, confined to it (project-file.ts).
 */
import { isInputRequiredResult, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type PromptMessage, type Server, type ServerCapabilities } from "@modelcontextprotocol/server";
import { isSteamharnessError } from "../../../domain/errors.js";
import { completeFromOptions, fillPlaceholders, matchUriTemplate } from "../../../domain/workflow/publication-text.js";
import type { StructurePublications, WorkflowResourceDeclaration } from "../../../domain/workflow/publications.js";
import type { ProjectFiles } from "../../../ports/project-files.js";
import { createResourceSubscriptions, type ResourceSubscriptions } from "./resource-subscriptions.js";
import { invalidParams } from "./workflow-result.js";
import { promptAnswers } from "./input-required.js";
import { canAskClient } from "./workflow-elicitation.js";

/** MCP's old "Resource not found" code: the SDK answers it as -32602, the code the 2026-07-28 revision prescribes on every revision. */
const RESOURCE_NOT_FOUND = -32002;

const MIME_BY_EXTENSION: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  css: "text/css",
  json: "application/json",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  js: "text/javascript",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  wav: "audio/wav",
  mp3: "audio/mpeg",
};

/** A declared MIME type, else one guessed from the file's extension, else octet-stream. */
function mimeTypeOf(declared: string | undefined, file?: string): string {
  if (declared) return declared;
  const extension = file?.split(".").pop()?.toLowerCase() ?? "";
  return MIME_BY_EXTENSION[extension] ?? (file === undefined ? "text/plain" : "application/octet-stream");
}

/** A resource's MIME type: declared, else by its file's extension; inline text is text/plain, inline Base64 octet-stream. */
const resourceMimeType = (resource: WorkflowResourceDeclaration) => (resource.blob !== undefined && !resource.mimeType ? "application/octet-stream" : mimeTypeOf(resource.mimeType, resource.file));

const isTextual = (mimeType: string) => mimeType.startsWith("text/") || /^application\/(json|xml|yaml|javascript)$/.test(mimeType) || /\+(json|xml)$/.test(mimeType);

/**
 * The capabilities a project's publications add: `prompts` when it declares prompts,
 * `resources` (with `subscribe`) when it declares resources or resource templates,
 * `completions` when a prompt argument or a template variable has static options; `{}` for a
 * project that declares none, whose server then answers exactly as before.
 *
 * @example
 * publicationCapabilities(await runner.structure()) // {} for a project with entrypoints only
 */
export function publicationCapabilities(published: StructurePublications | undefined): ServerCapabilities {
  if (!published) return {};
  const prompts = published.prompts ?? [];
  const templates = published.resourceTemplates ?? [];
  const completions = prompts.some((prompt) => prompt.arguments.some((argument) => argument.options)) || templates.some((template) => Object.keys(template.options ?? {}).length > 0);
  return {
    ...(prompts.length > 0 ? { prompts: { listChanged: false } } : {}),
    ...((published.resources ?? []).length + templates.length > 0 ? { resources: { subscribe: true, listChanged: false } } : {}),
    ...(completions ? { completions: {} } : {}),
  };
}

/** A file fault as a JSON-RPC error: missing → Resource not found; refused (escape, size, kind) → internal error naming why. */
function fileError(error: unknown): ProtocolError {
  if (isSteamharnessError(error, "not_found")) return new ProtocolError(RESOURCE_NOT_FOUND, error.message);
  if (isSteamharnessError(error)) return new ProtocolError(ProtocolErrorCode.InternalError, error.message);
  return new ProtocolError(ProtocolErrorCode.InternalError, `[steamharness] [mcp] cannot read the resource: ${(error as Error)?.message ?? String(error)}`);
}

/** The project whose files a server publishes: its folder, and how its files are read and watched. */
export interface PublishedProject {
  directory: string;
  files: Pick<ProjectFiles, "readFile" | "resolveFile" | "watchFile" | "exists">;
}

async function fileContent(project: PublishedProject, file: string): Promise<Buffer> {
  try {
    return Buffer.from(await project.files.readFile(project.directory, file));
  } catch (error) {
    throw fileError(error);
  }
}

/**
 * Registers the handlers of what `published` declares on `server`, whose `capabilities`
 * include {@link publicationCapabilities} of it, and returns the connection's subscriptions,
 * which the caller closes when the connection closes.
 *
 * @example
 * const capabilities = publicationCapabilities(structure);
 * const subscriptions = addPublicationHandlers(server, structure, capabilities, { directory: runner.location.directory, files: runner.ports.files });
 * // on close: subscriptions.close();
 */
export function addPublicationHandlers(server: Server, published: StructurePublications, capabilities: ServerCapabilities, project: PublishedProject): ResourceSubscriptions {
  const prompts = published.prompts ?? [];
  const resources = published.resources ?? [];
  const templates = published.resourceTemplates ?? [];
  const subscriptions = createResourceSubscriptions((uri) => void server.sendResourceUpdated({ uri }).catch(() => undefined), project.files);

  const readResource = async (uri: string) => {
    const resource = resources.find((candidate) => candidate.uri === uri);
    if (resource) return [await resourceContents(resource)];
    for (const template of templates) {
      const values = matchUriTemplate(template.uriTemplate, uri);
      if (values) return [{ uri, mimeType: mimeTypeOf(template.mimeType), text: fillPlaceholders(template.text, values) }];
    }
    throw new ResourceNotFoundError(uri, `Resource not found: ${uri}`);
  };
  const resourceContents = async (resource: WorkflowResourceDeclaration) => {
    const mimeType = resourceMimeType(resource);
    if (resource.text !== undefined) return { uri: resource.uri, mimeType, text: resource.text };
    if (resource.blob !== undefined) return { uri: resource.uri, mimeType, blob: resource.blob };
    const bytes = await fileContent(project, resource.file!);
    return isTextual(mimeType) ? { uri: resource.uri, mimeType, text: bytes.toString("utf8") } : { uri: resource.uri, mimeType, blob: bytes.toString("base64") };
  };

  if (capabilities.prompts) {
    server.setRequestHandler("prompts/list", async () => ({
      prompts: prompts.map((prompt) => ({
        name: prompt.name,
        title: prompt.title,
        description: prompt.description,
        arguments: prompt.arguments.map(({ name, description, required }) => ({ name, ...(description !== undefined ? { description } : {}), ...(required !== undefined ? { required } : {}) })),
      })),
    }));
    server.setRequestHandler("prompts/get", async (request, ctx) => {
      const prompt = prompts.find((candidate) => candidate.name === request.params.name);
      if (!prompt) throw invalidParams(`unknown prompt: ${request.params.name}`);
      const given = request.params.arguments ?? {};
      const unknown = Object.keys(given).filter((name) => !prompt.arguments.some((argument) => argument.name === name));
      if (unknown.length > 0) throw invalidParams(`prompt ${prompt.name} has no argument ${unknown.map((name) => JSON.stringify(name)).join(", ")}`);
      const missing = prompt.arguments.filter((argument) => argument.required && (given[argument.name] ?? "") === "").map((argument) => argument.name);
      if (missing.length > 0) throw invalidParams(`prompt ${prompt.name}: missing required argument${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
      // MCP-19: a prompt that asks the person answers an input round first (input-required.ts).
      const asked = prompt.ask ? await promptAnswers(prompt.ask, ctx, canAskClient(server) && server.getClientCapabilities()?.elicitation !== undefined) : {};
      if (isInputRequiredResult(asked)) return asked as never;
      const values = { ...Object.fromEntries(prompt.arguments.map((argument) => [argument.name, given[argument.name] ?? ""])), ...asked };
      const messages: PromptMessage[] = [];
      for (const { role, content } of prompt.messages) {
        if (content.type === "text") messages.push({ role, content: { type: "text", text: fillPlaceholders(content.text, values) } });
        else if (content.type === "image") messages.push({ role, content: { type: "image", mimeType: mimeTypeOf(content.mimeType, content.file), data: (await fileContent(project, content.file)).toString("base64") } });
        else {
          const uri = fillPlaceholders(content.uri, values);
          let contents;
          try {
            [contents] = await readResource(uri);
          } catch (error) {
            // The URI came from the client's arguments: naming none of the resources is their mistake.
            if (error instanceof ResourceNotFoundError && uri !== content.uri) throw invalidParams(`prompt ${prompt.name}: ${JSON.stringify(uri)} is none of the project's resources`);
            throw error;
          }
          messages.push({ role, content: { type: "resource", resource: contents! } });
        }
      }
      return { ...(prompt.description ? { description: prompt.description } : {}), messages };
    });
  }

  if (capabilities.resources) {
    const described = (item: { name: string; title?: string; description?: string; mimeType?: string }) => ({
      name: item.name,
      ...(item.title !== undefined ? { title: item.title } : {}),
      ...(item.description !== undefined ? { description: item.description } : {}),
    });
    server.setRequestHandler("resources/list", async () => ({
      resources: resources.map((resource) => ({ uri: resource.uri, ...described(resource), mimeType: resourceMimeType(resource) })),
    }));
    server.setRequestHandler("resources/templates/list", async () => ({
      resourceTemplates: templates.map((template) => ({ uriTemplate: template.uriTemplate, ...described(template), mimeType: mimeTypeOf(template.mimeType) })),
    }));
    server.setRequestHandler("resources/read", async (request) => ({ contents: await readResource(request.params.uri) }));
    server.setRequestHandler("resources/subscribe", async (request) => {
      const { uri } = request.params;
      const resource = resources.find((candidate) => candidate.uri === uri);
      if (!resource && !templates.some((template) => matchUriTemplate(template.uriTemplate, uri))) throw new ResourceNotFoundError(uri, `Resource not found: ${uri}`);
      let path: string | null = null;
      if (resource?.file !== undefined) {
        try {
          path = await project.files.resolveFile(project.directory, resource.file);
        } catch (error) {
          throw fileError(error);
        }
      }
      subscriptions.subscribe(uri, path);
      return {};
    });
    server.setRequestHandler("resources/unsubscribe", async (request) => {
      subscriptions.unsubscribe(request.params.uri);
      return {};
    });
  }

  if (capabilities.completions) {
    server.setRequestHandler("completion/complete", async (request) => {
      const { ref, argument } = request.params;
      if (ref.type === "ref/prompt") {
        const prompt = prompts.find((candidate) => candidate.name === ref.name);
        if (!prompt) throw invalidParams(`unknown prompt: ${ref.name}`);
        return { completion: { ...completeFromOptions(prompt.arguments.find((candidate) => candidate.name === argument.name)?.options, argument.value) } };
      }
      const template = templates.find((candidate) => candidate.uriTemplate === ref.uri);
      if (!template) throw invalidParams(`unknown resource template: ${ref.uri}`);
      return { completion: { ...completeFromOptions(template.options?.[argument.name], argument.value) } };
    });
  }
  return subscriptions;
}
