import type { JsonValue } from "./json.js";
import type { OutputItem, OutputItemDisplay, OutputItemMetadata, OutputItemStreamChunk } from "./output-items.js";

/** What {@link createOutputItemChunk} takes: an item without its `done` flag. */
export interface OutputItemInit {
  id: string;
  content?: JsonValue;
  display?: OutputItemDisplay;
  metadata?: OutputItemMetadata;
}

/**
 * Builds the `add` chunk that starts an output item.
 *
 * @example
 * yield createOutputItemChunk({ id: "answer", content: "", metadata: { kind: "agent-answer" } });
 */
export function createOutputItemChunk(item: OutputItemInit): OutputItemStreamChunk {
  return {
    type: "add",
    item: {
      id: item.id,
      metadata: item.metadata ?? {},
      ...(item.display === undefined ? {} : { display: item.display }),
      ...(item.content === undefined ? {} : { content: item.content }),
    },
  };
}

/** Builders for the other chunk types, so producers never spell chunk objects by hand. */
export const outputChunk = {
  /** Appends text to a string content. */
  delta: (id: string, delta: string): OutputItemStreamChunk => ({ type: "delta", id, delta }),
  /** Replaces content (and metadata when given). */
  replace: (id: string, content: JsonValue, metadata?: OutputItemMetadata): OutputItemStreamChunk =>
    metadata === undefined ? { type: "replace", id, content } : { type: "replace", id, content, metadata },
  /** Marks an item finished. */
  done: (id: string): OutputItemStreamChunk => ({ type: "done", id }),
};

/** Folds a stream of chunks into items. */
export interface OutputStreamAccumulator {
  /** Applies one chunk. Chunks for a finished item are ignored. */
  push(chunk: OutputItemStreamChunk): void;
  /** Applies chunks in order. */
  pushAll(chunks: Iterable<OutputItemStreamChunk>): void;
  /** The items in the order they were first seen (deep copies). */
  items(): OutputItem[];
  /** One item (a deep copy), or `undefined`. */
  get(id: string): OutputItem | undefined;
}

const clone = <T>(value: T): T => structuredClone(value);

/**
 * Creates an accumulator. Rules: an item's position is where its id first appears; `add` of a
 * known id updates display and metadata but keeps content; `delta` appends to string content
 * (non-string content is replaced by the delta text); `replace` sets content and, when given,
 * metadata; after `done` the item is frozen.
 *
 * @example
 * const acc = createOutputStreamAccumulator();
 * acc.pushAll(chunks);
 * const items = acc.items();
 */
export function createOutputStreamAccumulator(): OutputStreamAccumulator {
  const order: string[] = [];
  const byId = new Map<string, OutputItem>();

  const ensure = (id: string): OutputItem => {
    let item = byId.get(id);
    if (!item) {
      item = { id, content: "", metadata: {}, done: false };
      byId.set(id, item);
      order.push(id);
    }
    return item;
  };

  const accumulator: OutputStreamAccumulator = {
    push(chunk) {
      const id = chunk.type === "add" ? chunk.item.id : chunk.id;
      const item = ensure(id);
      if (item.done) return;
      switch (chunk.type) {
        case "add":
          item.metadata = clone(chunk.item.metadata ?? {});
          if (chunk.item.display !== undefined) item.display = clone(chunk.item.display);
          if (chunk.item.content !== undefined && item.content === "") item.content = clone(chunk.item.content);
          break;
        case "delta":
          item.content = (typeof item.content === "string" ? item.content : "") + chunk.delta;
          break;
        case "replace":
          item.content = clone(chunk.content);
          if (chunk.metadata !== undefined) item.metadata = clone(chunk.metadata);
          break;
        case "done":
          item.done = true;
          break;
      }
    },
    pushAll(chunks) {
      for (const chunk of chunks) accumulator.push(chunk);
    },
    items: () => order.map((id) => clone(byId.get(id)!)),
    get: (id) => {
      const item = byId.get(id);
      return item === undefined ? undefined : clone(item);
    },
  };
  return accumulator;
}
