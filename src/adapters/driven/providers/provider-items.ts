/**
 * Hidden provider content on its way back (OUT-10). A response's raw built-in-tool items (see
 * web-search-wire.ts) are kept with its assistant message as `providerItems`; on the next request
 * to the same model they go back where they came from:
 *
 * - OpenAI Responses: the request body is ours (openai-responses-input.ts), which interleaves the
 *   `web_search_call` items with the message's other items. A reasoning item must be followed by
 *   the item it led to, so a search after reasoning cannot be left out.
 * - Anthropic Messages: pi-ai builds the `messages`, and its blocks know only text, thinking and
 *   tool calls. Each item stands in pi-ai's context as a text block holding a marker with a nonce
 *   of this request; the payload hook swaps every marker for its block. The nonce is random per
 *   request, so no text a model or a user wrote can be taken for a marker.
 */
import { randomUUID } from "node:crypto";
import type { AssistantMessage, Context } from "@mariozechner/pi-ai";
import type { JsonObject } from "../../../domain/json.js";
import type { ModelProviderItem } from "../../../ports/model-provider.js";

/** A pi-ai assistant message carrying the hidden items of the same model (pi-ai-mapping.ts). */
export type AssistantWithItems = AssistantMessage & { providerItems?: readonly ModelProviderItem[] };

/** The hidden items of a pi-ai message, or none. */
export const itemsOf = (message: AssistantMessage): readonly ModelProviderItem[] => (message as AssistantWithItems).providerItems ?? [];

type Payload = Record<string, unknown>;

/**
 * Anthropic: pi-ai's context with a marker text block in place of each hidden item, and the
 * payload hook step that puts the items back. `restore` is the identity when there were none.
 *
 * @example
 * const { context: marked, restore } = markAnthropicItems(context);
 * options.onPayload = (payload) => restore(payload);
 */
export function markAnthropicItems(context: Context): { context: Context; restore(payload: unknown): unknown } {
  const nonce = randomUUID();
  const items = new Map<string, JsonObject>();
  const messages = context.messages.map((message) => {
    if (message.role !== "assistant") return message;
    const hidden = itemsOf(message).filter((item) => item.api === "anthropic-messages");
    if (hidden.length === 0) return message;
    const content: AssistantMessage["content"] = [];
    const marker = (item: ModelProviderItem): void => {
      const text = `steamharness-provider-item:${nonce}:${items.size}`;
      items.set(text, item.item);
      content.push({ type: "text", text });
    };
    for (const [index, block] of message.content.entries()) {
      for (const item of hidden) if (item.position === index) marker(item);
      content.push(block);
    }
    for (const item of hidden) if (item.position >= message.content.length) marker(item);
    const { providerItems: _items, ...rest } = message as AssistantWithItems;
    return { ...rest, content };
  });
  if (items.size === 0) return { context, restore: (payload) => payload };
  const restore = (payload: unknown): unknown => {
    const body = payload as Payload;
    if (!Array.isArray(body?.messages)) return payload;
    const swap = (block: unknown): unknown => {
      const text = (block as { type?: unknown; text?: unknown } | null)?.text;
      return (block as { type?: unknown }).type === "text" && typeof text === "string" && items.has(text) ? items.get(text) : block;
    };
    return {
      ...body,
      messages: body.messages.map((message: { role?: unknown; content?: unknown }) =>
        message?.role === "assistant" && Array.isArray(message.content) ? { ...message, content: message.content.map(swap) } : message,
      ),
    };
  };
  return { context: { ...context, messages }, restore };
}
