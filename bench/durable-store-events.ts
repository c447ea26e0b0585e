// Turn-sized event batches for bench/durable-store.bench.ts: what one agent turn with one tool
// call appends at its step boundaries (SES-1), with payloads of realistic size.
import type { SessionEventInput } from "../src/ports/session-store.js";

const words = (n: number, seed: number): string =>
  Array.from({ length: n }, (_, i) => ["read", "the", "file", "then", "edit", "line", "会话", "result"][(i * 7 + seed) % 8]).join(" ");

const usage = (runId: string, step: number): SessionEventInput => ({
  eventId: `${runId}/usage/${step}`,
  runId,
  type: "usage",
  payload: {
    entry: { entryId: `${runId}/usage/${step}`, runId, provider: "offline", model: "scripted", at: 1_700_000_000_000, input: 1200, output: 300, cacheRead: 0, cacheWrite: 0, total: 1500 },
  },
});

/**
 * The append batches of one turn (5 transactions, 10 events): start and prompt; the model's tool
 * call with its usage and the tool intent; the tool start; the tool result; the answer, its usage
 * and the end of the run.
 */
export function turnBatches(runId: string, turn: number): SessionEventInput[][] {
  const toolCallId = `${runId}/call/0`;
  return [
    [
      {
        eventId: `${runId}/start`,
        runId,
        type: "run_started",
        payload: { prompt: words(40, turn), mode: "build", workdir: "/work", effort: "medium", provider: "offline", model: "scripted", modelSource: { entry: "default" }, configuration: null, answerItemId: null },
      },
      { eventId: `${runId}/user`, runId, type: "user_message", payload: { message: { role: "user", content: words(40, turn) } } },
    ],
    [
      {
        eventId: `${runId}/assistant/0`,
        runId,
        type: "assistant_message",
        payload: {
          message: { role: "assistant", content: [{ type: "text", text: words(60, turn + 1) }, { type: "toolCall", id: toolCallId, name: "read", arguments: { path: `src/file-${turn}.ts` } }] },
          stopReason: "toolUse",
          step: 0,
          attempt: 0,
        },
      },
      usage(runId, 0),
      { eventId: `${runId}/intent/0`, runId, type: "tool_intent", payload: { toolCallId, toolName: "read", arguments: { path: `src/file-${turn}.ts` }, replay: "safe" } },
    ],
    [{ eventId: `${runId}/tool-started/0`, runId, type: "tool_started", payload: { toolCallId } }],
    [
      {
        eventId: `${runId}/tool-result/0`,
        runId,
        type: "tool_result",
        payload: { message: { role: "toolResult", toolCallId, toolName: "read", content: [{ type: "text", text: words(250, turn + 2) }], isError: false }, details: null },
      },
    ],
    [
      {
        eventId: `${runId}/assistant/1`,
        runId,
        type: "assistant_message",
        payload: { message: { role: "assistant", content: [{ type: "text", text: words(80, turn + 3) }] }, stopReason: "stop", step: 1, attempt: 0 },
      },
      usage(runId, 1),
      { eventId: `${runId}/finished`, runId, type: "run_finished", payload: { status: "completed", toolCallCount: 1 } },
    ],
  ];
}

/** Events per turn of {@link turnBatches}. */
export const EVENTS_PER_TURN = 10;

/** A compacted transcript as a snapshot state: a summary and the last exchange. */
export function compactedState(upToTurn: number): { summary: string; recent: string[]; turns: number } {
  return { summary: words(400, upToTurn), recent: [words(60, upToTurn), words(80, upToTurn + 1)], turns: upToTurn };
}
