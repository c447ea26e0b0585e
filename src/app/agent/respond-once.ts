import type { ModelProvider, ModelRequest, ModelResponse } from "../../ports/model-provider.js";

/** What {@link respondOnce} got: the response's text, or why there is none (with the response, if any). */
export type OneResponse = { ok: true; text: string; response: ModelResponse } | { ok: false; reason: string; response: ModelResponse | null };

/**
 * One model request outside a run's loop (a compaction summary, an eval rubric's grade): streams
 * it to its end and answers the response's text blocks joined by newlines. A provider that
 * throws, a failed or aborted-by-the-provider response, or no response is `ok: false` with the
 * reason; the caller decides what a cancelled `signal` means.
 *
 * @example
 * const answer = await respondOnce(model, { requestId, systemPrompt, messages, tools: [] }, signal);
 * if (answer.ok) console.log(answer.text);
 */
export async function respondOnce(model: ModelProvider, request: ModelRequest, signal: AbortSignal): Promise<OneResponse> {
  let done: ModelResponse | null = null;
  try {
    for await (const event of model.stream(request, signal)) if (event.type === "done") done = event.response;
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error), response: null };
  }
  if (!done || done.stopReason === "error" || done.stopReason === "aborted") return { ok: false, reason: done?.errorMessage ?? "the model sent no response", response: done };
  return { ok: true, text: done.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n"), response: done };
}
