/**
 * The baseline of bench/durable.bench.ts, in its own process: the same scripted tool loop on
 * LangGraph.js — a StateGraph over a messages channel, an "agent" node that answers with one
 * scripted tool call per step and a "tools" node that answers it — persisted by LangGraph's
 * SqliteSaver on a file. Usage:
 *   node --import tsx bench/durable-langgraph.ts loop <file> <steps>   → { msPerStep, ms, bytes }
 *   node --import tsx bench/durable-langgraph.ts read <file>           → { readMs, messages }
 *   node --import tsx bench/durable-langgraph.ts travel <file> <steps> <at>
 *     the loop, then time travel (the anchor of bench/timetravel-anchor.bench.ts): find the
 *     checkpoint after step <at>'s tool result in the state history, fork it with `updateState`
 *     (a new user message), re-invoke from the fork → { historyMs, forkMs, reinvokeMs, refired }:
 *     `refired` counts the tools node's executions during the re-invoke (each one an effect again).
 * Prints one JSON line.
 */
import { statSync } from "node:fs";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";

const [mode, file, stepsArg] = process.argv.slice(2);
const steps = Number(stepsArg ?? 100);
const thread = { configurable: { thread_id: "bench" }, recursionLimit: 10_000 };
/** Executions of the tools node (each is the tool's effect). */
let toolRuns = 0;

/** Same shape as our loop: one tool call per model step, a short tool result, then an answer. */
function buildGraph(checkpointer: SqliteSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", (state) => {
      const done = state.messages.filter((message) => message instanceof AIMessage || message.getType() === "ai").length;
      if (done >= steps) return { messages: [new AIMessage("All steps done.")] };
      return { messages: [new AIMessage({ content: `Step ${done}.`, tool_calls: [{ id: `call-${done}`, name: "lookup", args: { key: `k${done}` } }] })] };
    })
    .addNode("tools", (state) => {
      const last = state.messages.at(-1) as AIMessage;
      toolRuns++;
      return { messages: (last.tool_calls ?? []).map((call) => new ToolMessage({ content: `value-of-${String(call.args.key)}`, tool_call_id: call.id! })) };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END))
    .addEdge("tools", "agent")
    .compile({ checkpointer });
}

const bytes = (path: string): number => {
  let total = 0;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      total += statSync(`${path}${suffix}`).size;
    } catch {
      // absent
    }
  }
  return total;
};

const checkpointer = SqliteSaver.fromConnString(file!);
const graph = buildGraph(checkpointer);
if (mode === "loop") {
  const started = performance.now();
  await graph.invoke({ messages: [new HumanMessage("Run the loop.")] }, thread);
  const ms = performance.now() - started;
  (checkpointer as unknown as { db: { close(): void } }).db.close();
  console.log(JSON.stringify({ ms, msPerStep: ms / steps, bytes: bytes(file!) }));
} else if (mode === "travel") {
  const at = Number(process.argv[5] ?? steps / 2);
  await graph.invoke({ messages: [new HumanMessage("Run the loop.")] }, thread);
  const aiCount = (messages: unknown[]) => messages.filter((message) => message instanceof AIMessage).length;
  let started = performance.now();
  let point: Awaited<ReturnType<typeof graph.getState>> | undefined;
  for await (const snapshot of graph.getStateHistory(thread)) {
    const messages = (snapshot.values as { messages: unknown[] }).messages;
    if (aiCount(messages) === at && messages.at(-1) instanceof ToolMessage) {
      point = snapshot;
      break;
    }
  }
  const historyMs = performance.now() - started;
  if (!point) throw new Error(`no checkpoint after step ${at}`);
  started = performance.now();
  const fork = await graph.updateState(point.config, { messages: [new HumanMessage("Try again.")] });
  const forkMs = performance.now() - started;
  const before = toolRuns;
  started = performance.now();
  await graph.invoke(null, { ...fork, recursionLimit: 10_000 });
  const reinvokeMs = performance.now() - started;
  (checkpointer as unknown as { db: { close(): void } }).db.close();
  console.log(JSON.stringify({ historyMs, forkMs, reinvokeMs, refired: toolRuns - before }));
} else {
  const started = performance.now();
  const state = await graph.getState(thread);
  const readMs = performance.now() - started;
  console.log(JSON.stringify({ readMs, messages: (state.values as { messages: unknown[] }).messages.length }));
}
