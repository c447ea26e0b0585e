import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, connect, type Socket } from "node:net";
import { describe, expect, it } from "@jest/globals";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createChatFeed } from "../../src/app/chats/chat-feed.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

const dir = tempDirRemovedAfterAll("chat-feed-");
const address = (conversationId: string) => ({ projectId: "p", conversationId, sessionKey: "agent" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the chat feed (issue 45 review: one wake-up source per chat)", () => {
  it("UI-2 a commit through the notifying backend wakes this process's readers at once, without a poll", async () => {
    const storage = createSqliteStorage({ directory: dir });
    const conversationId = randomUUID();
    let probes = 0;
    // A poll far longer than the test: only the commit can wake the readers.
    const feed = createChatFeed({ pollMs: 60_000, isLocal: () => true });
    const readers = Array.from({ length: 5 }, () => feed.reader(conversationId, async () => `${++probes}`));
    const waits = readers.map((reader) => reader.wait(reader.version()));
    const log = (await feed.notifying(storage.sessions!).openUnleased({ address: address(conversationId), create: true }))!;
    let woken = 0;
    const all = Promise.all(waits.map((wait) => wait.then(() => woken++)));
    await log.append([{ eventId: "e1", runId: "r1", type: "user_message", payload: { message: { role: "user", content: "hi" } } }]);
    await all;
    expect(woken).toBe(5);
    expect(probes).toBe(0);
    // A reader that read at an older version does not wait for the next commit.
    const stale = readers[0]!.version() - 1;
    await readers[0]!.wait(stale);
    for (const reader of readers) reader.close();
    await log.close();
    await storage.close();
  });

  it("UI-1 a task marked running wakes no reader (queued and running read alike: the turn's setup goes on to its model request without their reads); its end does", async () => {
    const storage = createSqliteStorage({ directory: dir });
    const conversationId = randomUUID();
    const feed = createChatFeed({ pollMs: 60_000, isLocal: () => true });
    const reader = feed.reader(conversationId, async () => "");
    const record = (await feed.notifying(storage.sessions!).openHostStore(conversationId, { create: true }))!;
    await record.insertTask({ taskId: "t1", runId: "r1", targetId: 0, prompt: "hi", input: {}, status: "queued", detail: null });
    const since = reader.version();
    let woken = false;
    const wait = reader.wait(since).then(() => (woken = true));
    expect(await record.updateTask("t1", { status: "running" })).toBeTruthy();
    await sleep(20);
    expect(woken).toBe(false);
    expect(reader.version()).toBe(since);
    await record.updateTask("t1", { status: "completed", detail: null });
    await wait;
    expect(reader.version()).toBe(since + 1);
    reader.close();
    await record.close();
    await storage.close();
  });

  it("UI-1 after a turn's task moves, its first commit that woke readers reaches a client of this process before the appending writer goes on (the first chunk does not wait for the rest of the turn); later commits do not wait", async () => {
    const storage = createSqliteStorage({ directory: dir });
    const conversationId = randomUUID();
    // A real loopback connection: the reader writes what it read, the client counts what arrived.
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const accepted = once(server, "connection") as Promise<[Socket]>;
    const client = connect((server.address() as { port: number }).port, "127.0.0.1");
    const [socket] = await accepted;
    let received = "";
    client.on("data", (data: Buffer) => (received += data.toString()));
    const feed = createChatFeed({ pollMs: 60_000, isLocal: () => true });
    const reader = feed.reader(conversationId, async () => "");
    const sessions = feed.notifying(storage.sessions!);
    const log = (await sessions.openUnleased({ address: address(conversationId), create: true }))!;
    // A turn starts: its task moves in the host record.
    const record = (await sessions.openHostStore(conversationId, { create: true }))!;
    await record.insertTask({ taskId: "t1", runId: "r1", targetId: 0, prompt: "hi", input: {}, status: "queued", detail: null });
    const sent = reader.wait(reader.version()).then(async () => socket.write(JSON.stringify(await log.readAfter(0))));
    await log.append([{ eventId: "e1", runId: "r1", type: "user_message", payload: { message: { role: "user", content: "hi" } } }]);
    // The writer resumes only after the event loop polled the client's socket.
    expect(received).toContain('"eventId":"e1"');
    await sent;
    // The turn's later appends do not wait, even with a waiting reader.
    const again = reader.wait(reader.version()).then(() => socket.write("e2 read"));
    await log.append([{ eventId: "e2", runId: "r1", type: "user_message", payload: { message: { role: "user", content: "again" } } }]);
    await again;
    expect(received).not.toContain("e2 read");
    reader.close();
    await record.close();
    client.destroy();
    socket.destroy();
    server.close();
    await log.close();
    await storage.close();
  });

  it("UI-2 readers of a chat run elsewhere share one poller, woken only when what it probes changed, and share one read per version", async () => {
    const conversationId = randomUUID();
    let probes = 0;
    let probing = 0;
    let mostAtOnce = 0;
    let state = "a";
    const feed = createChatFeed({ pollMs: 5, isLocal: () => false });
    const probe = async () => {
      probes++;
      mostAtOnce = Math.max(mostAtOnce, ++probing);
      await sleep(1);
      probing--;
      return state;
    };
    const readers = Array.from({ length: 20 }, () => feed.reader(conversationId, probe));
    // The first poll wakes (it has seen nothing yet); then the readers wait on an unchanged chat.
    await Promise.all(readers.map((reader) => reader.wait(reader.version())));
    const since = readers[0]!.version();
    let woken = 0;
    const waits = readers.map((reader) => reader.wait(since).then(() => woken++));
    await sleep(100);
    expect(woken).toBe(0);
    expect(probes).toBeGreaterThan(1);
    // One poller for the 20 readers: never two probes at once (one poller per reader would probe 20 at a time).
    expect(mostAtOnce).toBe(1);
    state = "b";
    await Promise.all(waits);
    expect(woken).toBe(20);
    let reads = 0;
    const got = await Promise.all(readers.map((reader) => reader.shared("after 0", async () => ++reads)));
    expect(new Set(got)).toEqual(new Set([1]));
    for (const reader of readers) reader.close();
    const stopped = probes;
    await sleep(50);
    // The poller stops with its last reader.
    expect(probes).toBe(stopped);
  });
});
