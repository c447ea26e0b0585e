/**
 * A read-only tap on the SSE bodies of provider requests, for the stream events pi-ai drops.
 *
 * Why this exists: pi-ai 0.73.1 sends the native web-search tool (through its `onPayload` hook)
 * but its stream processors ignore everything they do not model: OpenAI Responses
 * `web_search_call` output items and `url_citation` annotations, Anthropic `server_tool_use` /
 * `web_search_tool_result` blocks and `citations_delta`s (see pi-ai's
 * `providers/openai-responses-shared.js` `processResponsesStream` and `providers/anthropic.js`
 * `streamAnthropic`). Its only hooks are `onPayload` (the request) and `onResponse` (status and
 * headers, no body); the OpenAI client cannot be injected. Both SDK clients read `fetch` from the
 * global scope when pi-ai builds them for a request, so the tap wraps that `fetch` once and acts
 * only on requests carrying its marker header (removed before sending): their body passes
 * through unchanged while each SSE frame is also handed to the request's observer, before the
 * SDK sees it. Every other request is left alone.
 */

const MARKER = "x-steamharness-wire-tap";

type Fetch = typeof globalThis.fetch;

const observers = new Map<string, (frame: unknown) => void>();
let counter = 0;
let installedOn: Fetch | null = null;

function sseTransform(observe: (frame: unknown) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let buffer = "";
  const drain = (final: boolean): void => {
    buffer = buffer.replace(/\r\n?/g, "\n");
    let end = buffer.indexOf("\n\n");
    while (end !== -1 || (final && buffer.trim() !== "")) {
      const frame = end === -1 ? buffer : buffer.slice(0, end);
      buffer = end === -1 ? "" : buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      if (data !== "" && data !== "[DONE]") {
        try {
          observe(JSON.parse(data));
        } catch {
          // Not JSON: nothing a web-search observer could read; the SDK reports it if it matters.
        }
      }
      end = buffer.indexOf("\n\n");
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      drain(false);
      controller.enqueue(chunk);
    },
    flush() {
      buffer += decoder.decode();
      drain(true);
    },
  });
}

function install(): void {
  const current = globalThis.fetch;
  if (installedOn !== null && current === installedOn) return;
  const underlying = current;
  const tapped: Fetch = async (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const id = headers.get(MARKER);
    if (id === null) return underlying(input, init);
    headers.delete(MARKER);
    const response = await underlying(input, { ...init, headers });
    const observe = observers.get(id);
    if (!observe || !response.body || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response;
    return new Response(response.body.pipeThrough(sseTransform(observe)), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  globalThis.fetch = tapped;
  installedOn = tapped;
}

/** A tap for one request: the header that marks it, and `close` to stop observing. */
export interface WireTap {
  headers: Record<string, string>;
  close(): void;
}

/**
 * Opens a tap: send `headers` with the request and `observe` receives every SSE frame's JSON
 * data of its response, in order, before the SDK parses it. Close it when the response ends.
 *
 * @example
 * const tap = openWireTap((frame) => observer.frame(frame));
 * try { await streamFn(model, context, { headers: { ...headers, ...tap.headers } }); } finally { tap.close(); }
 */
export function openWireTap(observe: (frame: unknown) => void): WireTap {
  install();
  const id = `tap-${++counter}`;
  observers.set(id, observe);
  return { headers: { [MARKER]: id }, close: () => void observers.delete(id) };
}
