import { describe, expect, it } from "@jest/globals";
import { createMemorySessionStore } from "../../src/adapters/driven/memory/memory-session-store.js";
import { createSessionMessagesCache, readSessionMessages, rememberAppended } from "../../src/app/agent/history-cache.js";
import type { SessionEventInput, SessionStore } from "../../src/ports/session-store.js";

const address = { projectId: "p", sessionKey: "agent" };
const user = (runId: string, content: string): SessionEventInput => ({ eventId: `${runId}/prompt`, runId, type: "user_message", payload: { message: { role: "user", content } } });
const plan = (runId: string): SessionEventInput => ({ eventId: `${runId}/plan/0`, runId, type: "plan", payload: { planIndex: 0, text: "p" } });

describe("the agent's memory of session messages", () => {
  it("SES-1 reads only what follows the last remembered message, from the file it is given", async () => {
    const cache = createSessionMessagesCache();
    const scope = {};
    const first = createMemorySessionStore({ address });
    await first.append([user("r1", "one"), plan("r1")]);
    expect((await readSessionMessages(cache, { scope, key: "s" }, first, await first.head())).map((e) => e.eventId)).toEqual(["r1/prompt"]);

    // The same session, now a copy that shares the first message and continues differently:
    // its own message at seq 2 is read, although the first file's head was already at 2.
    const copy = createMemorySessionStore({ address });
    await copy.append([user("r1", "one"), user("r2", "two")]);
    const read = await readSessionMessages(cache, { scope, key: "s" }, copy, await copy.head());
    expect(read.map((e) => e.eventId)).toEqual(["r1/prompt", "r2/prompt"]);
    // Returned events are frozen: a caller cannot change what the next run reads.
    expect(() => {
      (read[0]!.payload as { message: { content: string } }).message.content = "changed";
    }).toThrow(TypeError);

    // A file that no longer has the remembered message at its seq is read whole.
    const other = createMemorySessionStore({ address });
    await other.append([user("r9", "nine")]);
    expect((await readSessionMessages(cache, { scope, key: "s" }, other, await other.head())).map((e) => e.eventId)).toEqual(["r9/prompt"]);
  });

  it("SES-7 a new snapshot (compaction) makes the agent read from the snapshot again", async () => {
    const cache = createSessionMessagesCache();
    const scope = {};
    const store = createMemorySessionStore({ address });
    await store.append([user("r1", "one"), user("r2", "two")]);
    await readSessionMessages(cache, { scope, key: "s" }, store, await store.head());
    await store.putSnapshot({ atSeq: 2, state: { messages: [] } });
    await store.append([user("r3", "three")]);
    expect((await readSessionMessages(cache, { scope, key: "s" }, store, await store.head())).map((e) => e.eventId)).toEqual(["r3/prompt"]);
  });

  it("SES-1 what a run appended is remembered: the next run reads nothing unless another writer appended, or the file changed", async () => {
    const cache = createSessionMessagesCache();
    const scope = {};
    const identity = { scope, key: "s" };
    const store = createMemorySessionStore({ address });
    // Counts the reads that go past the remembered part.
    const reads: number[] = [];
    const counted = (inner: SessionStore): SessionStore => ({ ...inner, address: inner.address, readAfter: async (seq, options) => (reads.push(seq), inner.readAfter(seq, options)) });
    const read = async (target: SessionStore) => (await readSessionMessages(cache, identity, counted(target), await target.head())).map((e) => e.eventId);

    expect(await read(store)).toEqual([]);
    rememberAppended(cache, identity, (await store.append([user("r1", "one"), plan("r1")])).events);
    expect(await read(store)).toEqual(["r1/prompt"]);
    expect(reads).toEqual([0]);
    rememberAppended(cache, identity, (await store.append([user("r2", "two")])).events);
    expect(await read(store)).toEqual(["r1/prompt", "r2/prompt"]);
    expect(reads).toEqual([0]);

    // Another writer appended before this run's events: not remembered, read next time.
    await store.append([user("x", "theirs")]);
    rememberAppended(cache, identity, (await store.append([user("r3", "three")])).events);
    expect(await read(store)).toEqual(["r1/prompt", "r2/prompt", "x/prompt", "r3/prompt"]);
    expect(reads).toEqual([0, 3]);

    // A copy that shares everything up to the remembered part but not the last appended event.
    rememberAppended(cache, identity, (await store.append([plan("r4")])).events);
    const copy = createMemorySessionStore({ address });
    await copy.append([user("r1", "one"), plan("r1"), user("r2", "two"), user("x", "theirs"), user("r3", "three"), user("r5", "other")]);
    expect(await read(copy)).toEqual(["r1/prompt", "r2/prompt", "x/prompt", "r3/prompt", "r5/prompt"]);
    expect(reads).toEqual([0, 3, 0]);
  });
});
