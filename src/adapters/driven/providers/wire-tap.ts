/**
 * A read-only tap on the SSE body of ONE provider request, for the stream events pi-ai drops.
 *
 * Why this exists: pi-ai 0.73.1's Anthropic stream processor ignores the blocks it does not model
 * (`server_tool_use` / `web_search_tool_result` and `citations_delta`; see pi-ai's
 * `providers/anthropic.js` `streamAnthropic`), and its hooks `onPayload` / `onResponse` see the
 * request and the response headers, never the body. It does accept an injected Anthropic client
 * (`AnthropicOptions.client`): the client of one request is built with the `fetch` returned here,
 * which passes the body through unchanged while handing each SSE frame's JSON data to that
 * request's observer, before the SDK parses it.
 *
 * SEC-6: nothing global is replaced. The returned function is handed to one SDK client only; it
 * calls whatever `globalThis.fetch` is at call time (a host's own fetch, proxy or spy still
 * applies) and never reads a marker from the request, so no other request in the process, and
 * no header a host or a model could send, can reach an observer.
 */

type Fetch = typeof globalThis.fetch;

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

/**
 * A `fetch` for one SDK client: `observe` receives every SSE frame's JSON data of its responses,
 * in order, before the SDK parses it. Other responses (JSON errors) pass through untouched.
 *
 * @example
 * const client = new Anthropic({ apiKey, baseURL, fetch: observingFetch((frame) => observer.frame(frame)) });
 */
export function observingFetch(observe: (frame: unknown) => void): Fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (!response.body || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response;
    return new Response(response.body.pipeThrough(sseTransform(observe)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
