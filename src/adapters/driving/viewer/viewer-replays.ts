/**
 * The viewer's replays (issue 46 item 5, REPLAY-2): a replay run's structured diff beside its
 * original, and from an original run the replays made of it. A replay's session records what it
 * replays (its replay record, written with its forked history); the diff is the one `replayRun`
 * returns — `diffRuns(runFacts(original), runFacts(replay))` with the price the replay recorded —
 * computed from both runs' events, so it holds for a replay that was interrupted too.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { diffRuns, runFacts, type RunDiff } from "../../../domain/time-travel/replay-diff.js";
import { replayRecordEventId, replayRecordOf, type ReplayRecord } from "../../../domain/time-travel/replay.js";
import type { SessionBackend } from "../../../ports/session-backend.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { SessionAddress, SessionStore } from "../../../ports/session-store.js";
import { parseViewerSessionId, viewerSessionId } from "./viewer-sessions.js";

/** What GET /api/replay answers for a run. */
export interface ViewerReplay {
  /** When the run is a replay: the original (viewer session id, address, run id), the tool mode and the diff; else `null`. */
  replayOf: { s: string; address: SessionAddress; runId: string; tools: ReplayRecord["tools"]; diff: RunDiff } | null;
  /** The replays made of this run, oldest session first. */
  replays: Array<{ s: string; sessionKey: string; runId: string }>;
}

/** What `read` makes of a session's store (opened unleased, then closed); `null` for a session that does not exist. */
async function readSession<T>(backend: SessionBackend, address: SessionAddress, read: (store: SessionStore) => Promise<T>): Promise<T | null> {
  const store = await backend.openUnleased({ address, create: false });
  if (!store) return null;
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

const recordOf = (store: SessionStore) => store.get(replayRecordEventId(store.address.sessionKey)).then(replayRecordOf);

/**
 * The replay facts of run `runId` of viewer session `s`: its diff against the original when it is
 * a replay, and the replays of it (the sessions forked from `s` whose record names the run: one
 * lookup each). `not_found` for an unknown session or run.
 *
 * @example
 * const { replayOf, replays } = await viewerReplay(storage.sessions!, catalog, s, runId);
 * replayOf?.diff.finalText.equal;
 */
export async function viewerReplay(backend: SessionBackend, catalog: SessionCatalog, s: string, runId: string): Promise<ViewerReplay> {
  const address = parseViewerSessionId(s);
  const found = await readSession(backend, address, async (store) => {
    const events = await store.readRun(runId);
    if (events.length === 0) throw new SteamharnessError("not_found", `no run ${runId} in this session`, { field: "runId" });
    const record = await recordOf(store);
    if (record?.runId !== runId) return { replayOf: null };
    const original = await readSession(backend, record.of.address, (source) => source.readRun(record.of.runId));
    const diff = diffRuns(runFacts(original ?? [], record.price), runFacts(events, record.price));
    return { replayOf: { s: viewerSessionId(record.of.address), address: record.of.address, runId: record.of.runId, tools: record.tools, diff } };
  });
  if (!found) throw new SteamharnessError("not_found", "no such session", { field: "s" });
  const replays: ViewerReplay["replays"] = [];
  for (const entry of await catalog.list({ projectId: address.projectId })) {
    if (!entry.forkOf || viewerSessionId(entry.forkOf.address) !== s || !entry.address.sessionKey.startsWith("replay-")) continue;
    const record = await readSession(backend, entry.address, recordOf);
    if (record?.of.runId === runId) replays.push({ s: viewerSessionId(entry.address), sessionKey: entry.address.sessionKey, runId: record.runId });
  }
  // The catalog lists newest first.
  return { replayOf: found.replayOf, replays: replays.reverse() };
}
