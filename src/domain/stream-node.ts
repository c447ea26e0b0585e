/**
 * A workflow node that streams chunks and then folds them into an output (WF-0).
 * `I` is its input, `C` the chunk type, `O` the output.
 */
export interface BaseStreamNode<I, C, O, X = unknown> {
  readonly name: string;
  /** Produces chunks. Errors thrown here end the run; chunks already yielded are kept. */
  stream(input: I, context: X): AsyncIterable<C>;
  /** Folds every chunk the run yielded into the output. */
  finalize(chunks: readonly C[], context: X, input: I): Promise<O> | O;
}

/** Options of {@link runStreamNode}. */
export interface RunStreamNodeOptions<C> {
  /** Called with each chunk as it arrives (live display). */
  onChunk?: (chunk: C) => void;
}

/** The result of {@link runStreamNode}. */
export interface StreamNodeResult<C, O> {
  output: O;
  chunks: C[];
}

/**
 * Runs a stream node to completion: collects its chunks, then finalizes them. If `stream`
 * throws, the error propagates with the chunks gathered so far attached as `chunks`.
 *
 * @example
 * const { output, chunks } = await runStreamNode(node, { prompt: "hi" }, context);
 */
export async function runStreamNode<I, C, O, X>(
  node: BaseStreamNode<I, C, O, X>,
  input: I,
  context: X,
  options: RunStreamNodeOptions<C> = {},
): Promise<StreamNodeResult<C, O>> {
  const chunks: C[] = [];
  try {
    for await (const chunk of node.stream(input, context)) {
      chunks.push(chunk);
      options.onChunk?.(chunk);
    }
  } catch (error) {
    if (typeof error === "object" && error !== null && !("chunks" in error)) {
      Object.defineProperty(error, "chunks", { value: chunks, enumerable: false });
    }
    throw error;
  }
  const output = await node.finalize(chunks, context, input);
  return { output, chunks };
}
