/**
 * EVAL-2: the portable JSONL of one run — a header line, then one canonical JSON line per event
 * (its id, run, type, time and payload; not its `seq`, which is the store's) — with secrets
 * redacted, so a run travels between machines and stores and exports the same bytes again.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import type { JsonValue } from "../json.js";
import { redactSecrets } from "../redaction.js";
import { canonicalJson } from "../stable-hash.js";
import { validateSessionEvent, type SessionEvent, type SessionEventInput } from "../agent/session-events.js";
import type { SessionAddress } from "../../ports/session-store.js";

/** The format name of the header line. */
export const RUN_EXPORT_FORMAT = "steamharness-run";

const RunExportHeader = Type.Object({
  format: Type.Literal(RUN_EXPORT_FORMAT),
  version: Type.Literal(1),
  runId: Type.String({ minLength: 1 }),
  address: Type.Object({ projectId: Type.String(), conversationId: Type.Optional(Type.String()), sessionKey: Type.String() }),
  events: Type.Integer({ minimum: 0 }),
});
const RunExportEvent = Type.Object({ eventId: Type.String({ minLength: 1 }), runId: Type.String({ minLength: 1 }), type: Type.String({ minLength: 1 }), at: Type.Number(), payload: Type.Unknown() });

/** The header line of an exported run. */
export type RunExportHeader = Static<typeof RunExportHeader>;

/** A parsed export: its header and its events (with their recorded times). */
export interface ParsedRunExport {
  header: RunExportHeader;
  events: Array<SessionEventInput & { at: number }>;
}

// Payload fields whose string values are credentials whatever they hold (`apiKey`, `access_token`,
// `password`, …); a bare `key` is an ordinary argument name and stays.
const SECRET_FIELD = /^(?:\w*(?:api|access|secret|private|signing)[_-]?key|\w*token|\w*secret|\w*passw(?:or)?d|\w*credentials?|authorization)$/i;

function redactValue(value: JsonValue, secrets: readonly string[], field = ""): JsonValue {
  if (typeof value === "string") return SECRET_FIELD.test(field) && value !== "" ? "[redacted]" : redactSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, secrets, key)]));
  return value;
}

/**
 * The JSONL of a run's events (`store.readRun(runId)`): every string holding one of `secrets`
 * has it replaced by `[redacted]`, and every string field named like a credential (`apiKey`,
 * `token`, `password`, …) is `[redacted]` whole. Lines end with `\n`.
 *
 * @example
 * const text = runExportText(store.address, runId, await store.readRun(runId), secretValues(process.env));
 */
export function runExportText(address: SessionAddress, runId: string, events: readonly SessionEvent[], secrets: readonly string[]): string {
  const header: RunExportHeader = { format: RUN_EXPORT_FORMAT, version: 1, runId, address: { ...address }, events: events.length };
  const lines = [canonicalJson(header)];
  for (const event of events) {
    lines.push(canonicalJson({ eventId: event.eventId, runId: event.runId, type: event.type, at: event.at, payload: redactValue(event.payload as JsonValue, secrets) }));
  }
  return `${lines.join("\n")}\n`;
}

const invalid = (line: number, message: string) => new SteamharnessError("input_validation", `[steamharness] [run-export] line ${line}: ${message}`, { field: "file", data: { line } });

/**
 * Reads an exported run: the header, then as many event lines as it announces, each checked
 * (shape, JSON payload, its run). Throws `input_validation` naming the line of the first fault.
 *
 * @example
 * const { header, events } = parseRunExport(readFileSync("run.jsonl", "utf8"));
 */
export function parseRunExport(text: string): ParsedRunExport {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const parse = (line: string, index: number): unknown => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      throw invalid(index + 1, "is not JSON");
    }
  };
  if (lines.length === 0) throw invalid(1, "an exported run starts with its header");
  const header = parse(lines[0]!, 0);
  if (!Value.Check(RunExportHeader, header)) throw invalid(1, `is not a ${RUN_EXPORT_FORMAT} version 1 header`);
  if (lines.length - 1 !== header.events) throw invalid(lines.length, `the header announces ${header.events} events, the file holds ${lines.length - 1}`);
  const events = lines.slice(1).map((line, index) => {
    const event = parse(line, index + 1);
    if (!Value.Check(RunExportEvent, event)) throw invalid(index + 2, "is not an event { eventId, runId, type, at, payload }");
    try {
      validateSessionEvent(event as SessionEventInput);
    } catch (error) {
      throw invalid(index + 2, (error as Error).message);
    }
    return event as SessionEventInput & { at: number };
  });
  return { header, events };
}
