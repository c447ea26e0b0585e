/**
 * EVAL-2: export a run of a session as portable JSONL, and import one into any session backend
 * (SQLite, PostgreSQL, memory) with its events' original times, so exporting the imported run
 * gives the same bytes.
 */
import { SteamharnessError } from "../../domain/errors.js";
import { parseRunExport, runExportText } from "../../domain/time-travel/run-export.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionAddress, SessionEventInput, SessionStore } from "../../ports/session-store.js";

/**
 * The JSONL of run `runId` of a session (see `runExportText`); `secrets` are the values to
 * redact (the CLI passes the credential-looking environment variables). `not_found` for a run
 * the session does not hold.
 *
 * @example
 * writeFileSync("run.jsonl", await exportRun(store, "run-1", { secrets: secretValues(process.env) }));
 */
export async function exportRun(store: SessionStore, runId: string, options: { secrets?: readonly string[] } = {}): Promise<string> {
  const events = await store.readRun(runId);
  if (events.length === 0) throw new SteamharnessError("not_found", `[steamharness] [run-export] run ${runId} is not in session ${store.address.sessionKey}`, { field: "runId" });
  return runExportText(store.address, runId, events, options.secrets ?? []);
}

/** What {@link importRun} resolves. */
export interface ImportedRun {
  runId: string;
  address: SessionAddress;
  /** Events written (0 when the session already held them all: import is idempotent). */
  appended: number;
}

/**
 * Imports an exported run into a session of `sessions` (default: the address it was exported
 * from; `address` places it elsewhere), under the session's lease. Events keep their ids and
 * times; ids already stored are skipped. `input_validation` for a malformed file (nothing written).
 *
 * @example
 * const { runId, address } = await importRun(readFileSync("run.jsonl", "utf8"), { sessions: storage.sessions! });
 */
export async function importRun(text: string, options: { sessions: SessionBackend; address?: SessionAddress }): Promise<ImportedRun> {
  const { header, events } = parseRunExport(text);
  const address = options.address ?? header.address;
  // The store stamps an append with its clock: each group of events of one time is appended
  // with the clock at that time, so the imported events keep their recorded times.
  let now = events[0]?.at ?? 0;
  const store = await options.sessions.open({ address, ownerId: `import-${header.runId}`, clock: { now: () => now } });
  let appended = 0;
  try {
    for (let start = 0; start < events.length; ) {
      let end = start;
      while (end < events.length && events[end]!.at === events[start]!.at) end++;
      now = events[start]!.at;
      const batch = events.slice(start, end).map(({ eventId, runId, type, payload }) => ({ eventId, runId, type, payload }) as SessionEventInput);
      appended += (await store.append(batch)).appended;
      start = end;
    }
  } finally {
    await store.close();
  }
  return { runId: header.runId, address, appended };
}
