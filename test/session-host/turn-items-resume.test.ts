import { randomUUID } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import type { OutputItem } from "../../src/domain/output-items.js";
import { describePostgres } from "../fixtures/postgres.js";
import { startHostChild } from "./child-process.js";
import { conversation, tempDir } from "./helpers.js";

const CHILD = path.join("test", "session-host", "fixtures", "items-child.ts");

type Turn = { runId: string; status: string; items?: OutputItem[] };
type Finished = { modelCalls: number; live: Record<string, OutputItem[]>; turns: Turn[] };

const rowsOf = (items: OutputItem[]) => items.map((item) => `${String(item.metadata.kind)}:${String(item.metadata.partType ?? item.metadata.tool ?? "")}`);

/** Runs two turns in one process, then reopens the host with `resume: true` in a second one. */
async function runThenReopen(config: Record<string, unknown>): Promise<{ first: Finished; reopened: Finished }> {
  const first = startHostChild({ ...config, mode: "run" }, CHILD);
  const ran = (await first.waitFor("finished", 60_000)) as unknown as Finished;
  expect(await first.exited).toBe(0);
  const second = startHostChild({ ...config, mode: "resume" }, CHILD);
  const reopened = (await second.waitFor("finished", 60_000)) as unknown as Finished;
  expect(await second.exited).toBe(0);
  return { first: ran, reopened };
}

function expectSameItems({ first, reopened }: { first: Finished; reopened: Finished }): void {
  expect(first.turns.map((turn) => turn.status)).toEqual(["completed", "completed"]);
  // The turns the first process ran: their items are what it streamed live, in live order.
  for (const turn of first.turns) expect(turn.items).toEqual(first.live[turn.runId]);
  const [one] = first.turns;
  expect(rowsOf(one!.items!)).toEqual(["agent-part:text", "agent-part:retry", "agent-part:tool", "agent-notice:", "agent-part:text"]);
  const retry = one!.items!.find((item) => item.metadata.partType === "retry")!;
  expect(retry.content).toEqual(expect.objectContaining({ kind: "dropped", attempt: 1 }));
  const search = one!.items!.find((item) => item.metadata.tool === "web_search")!;
  expect(search.content).toEqual(expect.objectContaining({ arguments: { query: "steamharness 发布" }, status: "completed" }));
  expect(one!.items!.find((item) => item.metadata.kind === "agent-notice")!.content).toContain("(https://example.com/release)");

  // Reopened elsewhere: nothing ran again, and every earlier turn shows the same items in the same order.
  expect(reopened.modelCalls).toBe(0);
  expect(reopened.turns.map((turn) => turn.runId)).toEqual(first.turns.map((turn) => turn.runId));
  for (const [index, turn] of reopened.turns.entries()) expect(turn.items).toEqual(first.turns[index]!.items);
}

describe("HOST-7 turns[].items survive a reopen in another process", () => {
  it("HOST-7 a host reopened with resume: true in a second process (SQLite) shows every earlier turn's items in live order, retry and search rows included", async () => {
    const dir = tempDir();
    expectSameItems(await runThenReopen({ dir, conv: conversation("items") }));
  }, 120_000);
});

describePostgres("HOST-7 turns[].items on PostgreSQL", (database) => {
  it("HOST-7 a host reopened with resume: true in a second process (PostgreSQL) shows every earlier turn's items in live order", async () => {
    const dir = tempDir();
    expectSameItems(await runThenReopen({ dir, conv: `items-${randomUUID()}`, url: database.url, schema: database.schema }));
  }, 120_000);
});
