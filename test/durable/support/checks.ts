// The invariants a scenario's session must hold after any crash and resume (SES-3, SES-4):
// read straight from the SQLite files the children wrote, never from the children's word.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createPostgresStorage } from "../../../src/adapters/driven/postgres/postgres-storage.js";
import { createKvTokenUsage } from "../../../src/adapters/driven/kernel/kv-token-usage.js";
import { createSqliteStorage } from "../../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createSqliteSessionStore } from "../../../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { UNKNOWN_OUTCOME_TEXT } from "../../../src/app/agent/tool-step.js";
import { modelRequestId } from "../../../src/domain/agent/ids.js";
import { messagesFromEvents, type SessionEvent } from "../../../src/domain/agent/session-events.js";
import type { OutputItem } from "../../../src/domain/output-items.js";
import type { ChildMessage, PostgresTarget } from "../fixtures/protocol.js";
import { NEVER_TOOLS, SAFE_TOOLS, SCENARIOS } from "../fixtures/scenarios.js";

/** What a check found: broken invariants, and facts worth counting over a torture. */
export interface SessionCheck {
  violations: string[];
  /** Calls of non-replayable tools whose outcome became unknown (the model was told). */
  unknownOutcomes: string[];
  /** Calls of `replay: "safe"` tools that ran more than once (redone after a crash). */
  redoneSafe: string[];
  events: SessionEvent[];
  usageTotal: number;
}

/** Reads every event of a scenario folder's session file (or, PG-3, of its PostgreSQL session). */
export async function readSessionEvents(dir: string, path = join(dir, "session.sqlite"), postgres?: PostgresTarget): Promise<SessionEvent[]> {
  if (postgres) {
    const storage = await createPostgresStorage({ connectionString: postgres.url, schema: postgres.schema });
    try {
      const store = await storage.sessions!.openUnleased({ address: { projectId: "durable", sessionKey: "agent" }, create: false });
      return store ? await store.readAfter(0) : [];
    } finally {
      await storage.close();
    }
  }
  const store = createSqliteSessionStore({ path, address: { projectId: "durable", sessionKey: "agent" } });
  try {
    return await store.readAfter(0);
  } finally {
    await store.close();
  }
}

/** The token-usage total recorded in the scenario's SQLite KV store (or, PG-3, its PostgreSQL KV). */
export async function readUsageTotal(dir: string, conversationId?: string, postgres?: PostgresTarget): Promise<number> {
  const storage = postgres ? await createPostgresStorage({ connectionString: postgres.url, schema: postgres.schema }) : createSqliteStorage({ directory: join(dir, "store") });
  try {
    const namespace = conversationId === undefined ? { projectId: "durable" } : { projectId: "durable", conversationId };
    return (await createKvTokenUsage(storage.kv, namespace).total()).total;
  } finally {
    await storage.close();
  }
}

const lineCounts = (file: string): Map<string, number> => {
  const counts = new Map<string, number>();
  if (!existsSync(file)) return counts;
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
};

/** Messages must alternate: user → assistant → its tool results (one per call, in order) → …. */
function checkTranscript(events: SessionEvent[], violations: string[]): void {
  const messages = messagesFromEvents(events);
  if (messages[0]?.role !== "user") violations.push("transcript does not start with the user prompt");
  for (let i = 1; i < messages.length; i++) {
    const previous = messages[i - 1]!;
    const message = messages[i]!;
    if (message.role === "user" && previous.role !== "assistant") violations.push(`message ${i}: user message after ${previous.role}`);
    if (message.role === "assistant" && previous.role === "assistant") violations.push(`message ${i}: two assistant messages in a row`);
    if (previous.role === "assistant") {
      const calls = previous.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
      const results = messages.slice(i, i + calls.length).map((next) => (next.role === "toolResult" ? next.toolCallId : `<${next.role}>`));
      if (JSON.stringify(results) !== JSON.stringify(calls)) violations.push(`message ${i}: results ${results.join(",")} do not answer calls ${calls.join(",")}`);
    }
  }
  const last = messages.at(-1);
  if (last?.role !== "assistant") violations.push(`transcript ends with ${last?.role ?? "nothing"}`);
}

/**
 * Checks one scenario folder after its run completed: the log (contiguous seqs, unique ids, one
 * start and one finish), the transcript, one result per tool call, usage counted once (log, KV
 * total and the run's reported total agree), at most one execution of every non-replayable call,
 * safe calls redone rather than reported unknown, and every unknown outcome shown to the model.
 */
export async function checkSession(dir: string, scenarioName: string, observed: readonly ChildMessage[], finalItems: readonly OutputItem[] | null, where: { sessionPath?: string; conversationId?: string; postgres?: PostgresTarget } = {}): Promise<SessionCheck> {
  const scenario = SCENARIOS[scenarioName]!;
  const violations: string[] = [];
  const events = await readSessionEvents(dir, where.sessionPath, where.postgres);
  events.forEach((event, index) => {
    if (event.seq !== index + 1) violations.push(`seq ${event.seq} at position ${index + 1}`);
  });
  const ids = new Set(events.map((event) => event.eventId));
  if (ids.size !== events.length) violations.push("duplicate event ids");
  const ofType = <T extends SessionEvent["type"]>(type: T) => events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);
  if (ofType("run_started").length !== 1 || events[0]?.type !== "run_started") violations.push("not exactly one run_started, first");
  if (ofType("run_finished").length !== 1 || events.at(-1)?.type !== "run_finished") violations.push("not exactly one run_finished, last");
  checkTranscript(events, violations);

  const steps = ofType("assistant_message").map((event) => event.payload.step);
  if (JSON.stringify(steps) !== JSON.stringify(steps.map((_, i) => i))) violations.push(`assistant steps ${steps.join(",")}`);
  const finalText = ofType("assistant_message").at(-1)?.payload.message.content.find((block) => block.type === "text");
  if (finalText?.type !== "text" || finalText.text !== scenario.steps.at(-1)!.text) violations.push("the final answer is not the script's last step");

  const intents = ofType("tool_intent");
  const results = ofType("tool_result");
  const resultOf = new Map(results.map((event) => [event.payload.message.toolCallId, event.payload.message]));
  if (results.length !== resultOf.size) violations.push("a tool call has several results");
  for (const intent of intents) if (!resultOf.has(intent.payload.toolCallId)) violations.push(`call ${intent.payload.toolCallId} has no result`);
  if (results.length !== intents.length) violations.push(`${results.length} results for ${intents.length} intents`);

  const usageEvents = ofType("usage");
  const usageTotal = usageEvents.reduce((sum, event) => sum + event.payload.entry.total, 0);
  const compactions = ofType("compaction");
  const responseUsage = usageEvents.filter((event) => !event.eventId.includes("/compact/"));
  if (responseUsage.length !== steps.length) violations.push(`${responseUsage.length} usage records for ${steps.length} model responses`);
  if (usageEvents.length - responseUsage.length !== compactions.length) violations.push(`${usageEvents.length - responseUsage.length} compaction usage records for ${compactions.length} compactions`);
  if (scenario.compaction && compactions.length !== 1) violations.push(`${compactions.length} compactions, expected 1`);
  if (compactions.length > 0) {
    // The request after the compaction carries the summary, not the earlier tool results.
    const after = modelRequestId(events[0]!.runId, compactions[0]!.payload.step);
    const requests = observed.filter((message) => message.type === "model" && message.requestId === after);
    if (requests.length === 0 || requests.some((message) => message.type === "model" && message.toolResults.length > 0)) {
      violations.push("the request after the compaction did not continue from the summary");
    }
  }
  const kvTotal = await readUsageTotal(dir, where.conversationId, where.postgres);
  if (kvTotal !== usageTotal) violations.push(`KV usage total ${kvTotal} ≠ session usage ${usageTotal}`);
  const sessionItem = finalItems?.find((item) => item.metadata.kind === "agent-session");
  const reported = (sessionItem?.content as { usage?: { total?: number } } | undefined)?.usage?.total;
  if (finalItems && reported !== usageTotal) violations.push(`run reported usage ${reported} ≠ session usage ${usageTotal}`);
  if (finalItems?.some((item) => item.metadata.kind === "agent-error")) violations.push("the completed run shows an agent-error item");

  const effects = lineCounts(join(dir, "effects.log"));
  const safe = lineCounts(join(dir, "safe.log"));
  const unknownOutcomes: string[] = [];
  const redoneSafe: string[] = [];
  const modelSaw = (id: string) =>
    observed.some((message) => message.type === "model" && message.toolResults.some((r) => r.toolCallId === id && r.isError && r.text === UNKNOWN_OUTCOME_TEXT));
  for (const intent of intents) {
    const { toolCallId, toolName } = intent.payload;
    const result = resultOf.get(toolCallId);
    const text = result?.content.map((block) => block.text).join("\n") ?? "";
    if ((NEVER_TOOLS as readonly string[]).includes(toolName)) {
      const runs = effects.get(toolCallId) ?? 0;
      if (intent.payload.replay !== "never") violations.push(`${toolCallId}: intent says replay ${intent.payload.replay}`);
      if (runs > 1) violations.push(`${toolCallId} (replay never) ran ${runs} times`);
      if (text === UNKNOWN_OUTCOME_TEXT) {
        unknownOutcomes.push(toolCallId);
        if (!result?.isError) violations.push(`${toolCallId}: unknown outcome not marked as an error`);
        if (!modelSaw(toolCallId)) violations.push(`${toolCallId}: the model never received the unknown outcome`);
      } else if (text.startsWith("[approval_denied]")) {
        if (runs !== 0) violations.push(`${toolCallId}: denied but ran ${runs} times`);
      } else if (runs !== 1) violations.push(`${toolCallId}: result "${text}" but ran ${runs} times`);
    } else if ((SAFE_TOOLS as readonly string[]).includes(toolName)) {
      const runs = safe.get(toolCallId) ?? 0;
      if (intent.payload.replay !== "safe") violations.push(`${toolCallId}: intent says replay ${intent.payload.replay}`);
      if (result?.isError || !text.startsWith("value-of-")) violations.push(`${toolCallId} (replay safe): result "${text}"`);
      if (runs < 1) violations.push(`${toolCallId} (replay safe) never ran`);
      if (runs > 1) redoneSafe.push(toolCallId);
    }
  }
  // EXT-4: a codemode snippet's nested calls of non-replayable tools run at most once, and once
  // exactly when their recorded result says they ran.
  for (const event of events) {
    if (event.type !== "extension" || event.payload.feature !== "codemode" || event.payload.data.kind !== "intent") continue;
    const data = event.payload.data;
    const id = `${String(data.parentToolCallId)}#${String(data.index)}`;
    const result = events.find((other) => other.type === "extension" && other.payload.data.kind === "result" && other.payload.data.parentToolCallId === data.parentToolCallId && other.payload.data.index === data.index);
    const text = result?.type === "extension" ? String(result.payload.data.text) : "";
    if ((NEVER_TOOLS as readonly string[]).includes(String(data.name))) {
      const runs = effects.get(id) ?? 0;
      if (runs > 1) violations.push(`nested ${id} (replay never) ran ${runs} times`);
      if (text === UNKNOWN_OUTCOME_TEXT) unknownOutcomes.push(id);
      else if (result && runs !== 1) violations.push(`nested ${id}: result "${text}" but ran ${runs} times`);
    } else if ((SAFE_TOOLS as readonly string[]).includes(String(data.name)) && (safe.get(id) ?? 0) > 1) redoneSafe.push(id);
  }
  return { violations, unknownOutcomes, redoneSafe, events, usageTotal };
}
