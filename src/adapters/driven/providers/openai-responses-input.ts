/**
 * The OpenAI Responses request body built from pi-ai's Context (SEC-6: this API is spoken through
 * an `openai` client of our own, see openai-responses.ts). It follows what pi-ai 0.73.1 sends
 * (`providers/openai-responses.js` `buildParams`, `openai-responses-shared.js`
 * `convertResponsesMessages`, `transform-messages.js`): the same items for the same history, so
 * recorded sessions replay the same. pi-ai types are imported for type checking only.
 */
import type { AssistantMessage, Context, Model, ThinkingLevel } from "@mariozechner/pi-ai";
import { itemsOf } from "./provider-items.js";

type Item = Record<string, unknown>;

/** Marks redacted reasoning (see pi-ai-mapping.ts); opaque to every other model. */
const isRedacted = (block: { redacted?: boolean }): boolean => block.redacted === true;

/** Lone surrogates make the JSON body invalid for the API; pi-ai drops them too. */
const clean = (text: string): string => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "");

/** A call id the API accepts from another model's turn: `[A-Za-z0-9_-]`, at most 64 characters. */
const foreignCallId = (id: string): string =>
  id.split("|")[0]!.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64).replace(/_+$/, "");

function assistantItems(message: AssistantMessage, sameModel: boolean, index: number, renamed: Map<string, string>): { items: Item[]; calls: string[] } {
  const items: Item[] = [];
  const calls: string[] = [];
  const textItem = (text: string): Item => ({
    type: "message",
    role: "assistant",
    content: [{ type: "output_text", text: clean(text), annotations: [] }],
    status: "completed",
    id: items.some((item) => item.type === "message") ? `msg_${index}_${items.length}` : `msg_${index}`,
  });
  // Hidden `web_search_call` items of this model (OUT-10), each before the block it preceded.
  const hidden = sameModel ? itemsOf(message).filter((item) => item.api === "openai-responses") : [];
  const hiddenAt = (at: (position: number) => boolean): void => {
    for (const item of hidden) if (at(item.position)) items.push({ ...item.item });
  };
  for (const [position, block] of message.content.entries()) {
    hiddenAt((at) => at === position);
    if (block.type === "thinking") {
      if (sameModel && block.thinkingSignature) {
        // Our own reasoning item (encrypted content included), sent back as it came.
        try {
          items.push(JSON.parse(block.thinkingSignature) as Item);
        } catch {
          // Not an item of this API: nothing it could continue.
        }
      } else if (!sameModel && !isRedacted(block) && block.thinking.trim() !== "") {
        items.push(textItem(block.thinking));
      }
    } else if (block.type === "text") {
      items.push(textItem(block.text));
    } else {
      const [callId, itemId] = block.id.split("|");
      const id = sameModel ? callId! : foreignCallId(block.id);
      if (id !== block.id) renamed.set(block.id, id);
      calls.push(id);
      items.push({
        type: "function_call",
        ...(sameModel && itemId ? { id: itemId } : {}),
        call_id: id,
        name: block.name,
        arguments: JSON.stringify(block.arguments),
      });
    }
  }
  hiddenAt((at) => at >= message.content.length);
  return { items, calls };
}

/**
 * The `input` items of a Responses request: system prompt, user turns, assistant turns (this
 * model's reasoning items replayed; another model's reasoning as text, its tool-call ids made
 * acceptable), tool results, and a "No result provided" result for any call left unanswered.
 *
 * @example
 * const input = responsesInput(model, context);
 */
export function responsesInput(model: Model<"openai-responses">, context: Context): Item[] {
  const input: Item[] = [];
  if (context.systemPrompt) input.push({ role: model.reasoning ? "developer" : "system", content: clean(context.systemPrompt) });
  const renamed = new Map<string, string>();
  let pending: string[] = [];
  const answered = new Set<string>();
  const settle = (): void => {
    for (const id of pending) if (!answered.has(id)) input.push({ type: "function_call_output", call_id: id, output: "No result provided" });
    pending = [];
    answered.clear();
  };
  for (const [index, message] of context.messages.entries()) {
    if (message.role === "user") {
      settle();
      const content = typeof message.content === "string"
        ? [{ type: "input_text", text: clean(message.content) }]
        : message.content.map((part) =>
            part.type === "text" ? { type: "input_text", text: clean(part.text) } : { type: "input_image", detail: "auto", image_url: `data:${part.mimeType};base64,${part.data}` },
          );
      if (content.length > 0) input.push({ role: "user", content });
    } else if (message.role === "assistant") {
      settle();
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      const sameModel = message.api === model.api && message.provider === model.provider && message.model === model.id;
      const { items, calls } = assistantItems(message, sameModel, index, renamed);
      input.push(...items);
      pending = calls;
    } else {
      const id = renamed.get(message.toolCallId) ?? message.toolCallId.split("|")[0]!;
      answered.add(id);
      const text = message.content.filter((part) => part.type === "text").map((part) => part.text).join("\n");
      input.push({ type: "function_call_output", call_id: id, output: clean(text === "" ? "(no output)" : text) });
    }
  }
  settle();
  return input;
}

/**
 * The whole streaming request body: the model, the input, the output limit, the tools (not
 * strict, as pi-ai sends them), and the reasoning effort with its encrypted content for replay
 * when one is asked of a reasoning model (none otherwise: the model's default).
 *
 * @example
 * const body = responsesBody(model, context, { maxTokens: 16384, reasoning: "high" });
 */
export function responsesBody(model: Model<"openai-responses">, context: Context, options: { maxTokens?: number; reasoning?: ThinkingLevel }): Item {
  const body: Item = { model: model.id, input: responsesInput(model, context), stream: true, store: false };
  if (options.maxTokens) body.max_output_tokens = options.maxTokens;
  if (context.tools && context.tools.length > 0) {
    body.tools = context.tools.map((tool) => ({ type: "function", name: tool.name, description: tool.description, parameters: tool.parameters, strict: false }));
  }
  if (model.reasoning && options.reasoning) {
    const mapped = model.thinkingLevelMap?.[options.reasoning];
    body.reasoning = { effort: typeof mapped === "string" ? mapped : options.reasoning, summary: "auto" };
    body.include = ["reasoning.encrypted_content"];
  }
  return body;
}
