/**
 * Native web search on the wire (OUT-5, OUT-6): the tool each API takes, and observers that read
 * the searches and their sources out of the raw events of one response (pi-ai does not surface
 * them; see openai-responses.ts and anthropic-observed.ts). Positions count pi-ai's content blocks (text, reasoning, tool calls)
 * started before the search on the wire, so the adapter can place each search between the blocks
 * it happened between.
 */
import type { ProviderApiKind } from "./pi-ai-loader.js";

/** A search (`search`) or the sources an answer cited (`cited`), as read from the wire. */
export interface WebSearchObservation {
  kind: "search" | "cited";
  /** pi-ai content blocks started before it. */
  position: number;
  query?: string;
  sources: Array<{ url: string; title?: string }>;
  /** The provider's error code when the search failed. */
  error?: string;
  /**
   * The search's raw items as they came (OUT-10): the `web_search_call` item, or the
   * `server_tool_use` block (its input complete) and its `web_search_tool_result` block.
   */
  raw?: Json[];
}

/** Reads one response's SSE frames (JSON data, in order) and reports observations as they complete. */
export interface WebSearchObserver {
  frame(data: unknown): void;
}

type Source = { url: string; title?: string };
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

function sourceOf(value: unknown): Source | null {
  if (!isObject(value)) return null;
  const url = text(value.url);
  if (url === undefined) return null;
  const title = text(value.title);
  return title === undefined ? { url } : { url, title };
}

/** Collects the sources cited in an answer, each URL once, skipping those a search listed already. */
function citations() {
  const listed = new Set<string>();
  const cited: Source[] = [];
  return {
    listed(sources: readonly Source[]): void {
      for (const source of sources) listed.add(source.url);
    },
    cite(value: unknown): void {
      const source = sourceOf(value);
      if (source && !listed.has(source.url) && !cited.some((item) => item.url === source.url)) cited.push(source);
    },
    take(): Source[] {
      return cited.filter((source) => !listed.has(source.url));
    },
  };
}

/**
 * The request change that turns the API's native web search on: OpenAI Responses gets the
 * `web_search` tool and asks for the sources of each search; Anthropic Messages gets the
 * `web_search_20250305` server tool. Used as pi-ai's `onPayload`.
 *
 * @example
 * const params = withWebSearchTool("openai-responses", { model: "gpt-5", input: [] });
 */
export function withWebSearchTool(apiKind: ProviderApiKind, payload: unknown): unknown {
  if (!isObject(payload)) return payload;
  const tools = Array.isArray(payload.tools) ? payload.tools : [];
  if (apiKind === "openai-responses") {
    const include = Array.isArray(payload.include) ? payload.include : [];
    return { ...payload, tools: [...tools, { type: "web_search" }], include: [...include, "web_search_call.action.sources"] };
  }
  if (apiKind === "anthropic-messages") return { ...payload, tools: [...tools, { type: "web_search_20250305", name: "web_search", max_uses: 5 }] };
  return payload;
}

function responsesObserver(report: (observation: WebSearchObservation) => void): WebSearchObserver {
  let blocks = 0;
  const started = new Map<string, number>();
  const cited = citations();
  return {
    frame(data) {
      if (!isObject(data)) return;
      const item = isObject(data.item) ? data.item : null;
      if (data.type === "response.output_item.added" && item) {
        if (item.type === "reasoning" || item.type === "message" || item.type === "function_call") blocks++;
        else if (item.type === "web_search_call") started.set(String(item.id), blocks);
      } else if (data.type === "response.output_item.done" && item?.type === "web_search_call") {
        const action = isObject(item.action) ? item.action : {};
        const sources = (Array.isArray(action.sources) ? action.sources : action.url !== undefined ? [action] : []).map(sourceOf).filter((source): source is Source => source !== null);
        cited.listed(sources);
        const query = text(action.query) ?? (Array.isArray(action.queries) ? text(action.queries[0]) : undefined);
        report({
          kind: "search",
          position: started.get(String(item.id)) ?? blocks,
          sources,
          ...(query === undefined ? {} : { query }),
          ...(item.status === "failed" ? { error: "failed" } : {}),
          raw: [item],
        });
      } else if (data.type === "response.output_text.annotation.added" && isObject(data.annotation) && data.annotation.type === "url_citation") {
        cited.cite(data.annotation);
      } else if (data.type === "response.output_item.done" && item?.type === "message" && Array.isArray(item.content)) {
        for (const part of item.content) {
          if (!isObject(part) || !Array.isArray(part.annotations)) continue;
          for (const annotation of part.annotations) if (isObject(annotation) && annotation.type === "url_citation") cited.cite(annotation);
        }
      } else if (data.type === "response.completed") {
        const sources = cited.take();
        if (sources.length > 0) report({ kind: "cited", position: blocks, sources });
      }
    },
  };
}

function messagesObserver(report: (observation: WebSearchObservation) => void): WebSearchObserver {
  let blocks = 0;
  const calls = new Map<number, { id: string; position: number; json: string; input: Json; block: Json }>();
  const cited = citations();
  return {
    frame(data) {
      if (!isObject(data)) return;
      const block = isObject(data.content_block) ? data.content_block : null;
      if (data.type === "content_block_start" && block) {
        if (block.type === "text" || block.type === "thinking" || block.type === "redacted_thinking" || block.type === "tool_use") blocks++;
        if (block.type === "text" && Array.isArray(block.citations)) for (const citation of block.citations) cited.cite(citation);
        if (block.type === "server_tool_use" && block.name === "web_search") {
          calls.set(Number(data.index), { id: String(block.id), position: blocks, json: "", input: isObject(block.input) ? block.input : {}, block });
        } else if (block.type === "web_search_tool_result") {
          const call = [...calls.values()].find((candidate) => candidate.id === block.tool_use_id);
          let input = call?.input ?? {};
          try {
            if (call && call.json.trim() !== "") input = JSON.parse(call.json) as Json;
          } catch {
            // A cut input leaves the query unknown; the search itself still happened.
          }
          const results = Array.isArray(block.content) ? block.content : [];
          const sources = results.filter((result) => isObject(result) && result.type === "web_search_result").map(sourceOf).filter((source): source is Source => source !== null);
          cited.listed(sources);
          const query = text(input.query);
          const error = isObject(block.content) ? text(block.content.error_code) ?? "failed" : undefined;
          // Both blocks go back on the next turn (OUT-10): the call with its whole input, its result as it came.
          const raw = call ? [{ ...call.block, input }, block] : [block];
          report({ kind: "search", position: call?.position ?? blocks, sources, ...(query === undefined ? {} : { query }), ...(error === undefined ? {} : { error }), raw });
        }
      } else if (data.type === "content_block_delta" && isObject(data.delta)) {
        const call = calls.get(Number(data.index));
        if (call && data.delta.type === "input_json_delta" && typeof data.delta.partial_json === "string") call.json += data.delta.partial_json;
        if (data.delta.type === "citations_delta") cited.cite(data.delta.citation);
      } else if (data.type === "message_stop") {
        const sources = cited.take();
        if (sources.length > 0) report({ kind: "cited", position: blocks, sources });
      }
    },
  };
}

/**
 * An observer of one response's web searches, for the APIs with a native search (`null` for
 * OpenAI Chat Completions, which has none).
 *
 * @example
 * const observer = webSearchObserver("anthropic-messages", (observation) => queue.push(observation));
 */
export function webSearchObserver(apiKind: ProviderApiKind, report: (observation: WebSearchObservation) => void): WebSearchObserver | null {
  if (apiKind === "openai-responses") return responsesObserver(report);
  if (apiKind === "anthropic-messages") return messagesObserver(report);
  return null;
}
