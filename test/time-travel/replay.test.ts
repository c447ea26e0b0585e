import { spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import { openAgent } from "../../src/app/agent/create-agent.js";
import { replayRun } from "../../src/app/time-travel/replay.js";
import { replayRecordOf } from "../../src/domain/time-travel/replay.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import type { SessionStore } from "../../src/ports/session-store.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { effects, fixtureAgent, fixtureContext, PROJECT, recordRun, RECORDED_STEPS, SESSION_KEY } from "./replay-fixture.js";

const CRASH_CHILD = path.join("test", "time-travel", "fixtures", "replay-crash-child.ts");
// A fresh process starts in seconds on a loaded machine.
const CHILD_LIMIT_MS = 60_000;

const opened: Array<{ storage: SqliteStorage; source: SessionStore }> = [];
afterEach(async () => {
  for (const { storage, source } of opened.splice(0)) {
    await source.close();
    await storage.close();
  }
});

async function recorded() {
  const dir = tempDirRemovedAfterAll("replay-");
  const run = await recordRun(dir);
  opened.push(run);
  // The original ran each tool once.
  expect(effects(dir, "charge")).toEqual(["card-1"]);
  expect(effects(dir, "lookup")).toEqual(["alpha"]);
  return { dir, ...run };
}

describe("replay", () => {
  it("REPLAY-1 recorded mode answers every call from the recording: zero live tools, a run of its own", async () => {
    const { dir, storage, source } = await recorded();
    const result = await replayRun("run-original", { source, sessions: storage.sessions, agent: fixtureAgent(dir), context: fixtureContext(storage, "ignored", false), tools: "recorded" });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe("completed");
    expect({ answered: result.answered, live: result.live, divergences: result.divergences }).toEqual({ answered: 2, live: 0, divergences: [] });
    expect(effects(dir, "charge")).toEqual(["card-1"]);
    expect(effects(dir, "lookup")).toEqual(["alpha"]);
    // The replay is a session of its own, readable like any run.
    const replay = await storage.sessions.openUnleased({ address: result.address, create: false });
    const events = await replay!.readRun(result.runId);
    await replay!.close();
    expect(events.filter((event) => event.type === "tool_result").map((event) => event.type === "tool_result" && event.payload.message.content[0]!.text)).toEqual(["lookup alpha done", "charge card-1 done"]);
    expect(result.diff.same).toBe(true);
  });

  it("REPLAY-1 a divergence follows the policy: fail, live-safe, or the host's decision", async () => {
    const { dir, storage, source } = await recorded();
    const diverging = [
      { toolCalls: [{ name: "lookup", arguments: { key: "beta" } }] },
      { toolCalls: [{ name: "charge", arguments: { key: "card-2" } }] },
      { text: "Charged card-2." },
    ];
    const replay = (policy: Parameters<typeof replayRun>[1]["onDivergence"], tools: "recorded" | "live-safe" | "live" = "recorded") =>
      replayRun("run-original", { source, sessions: storage.sessions, agent: fixtureAgent(dir, diverging), context: fixtureContext(storage, "ignored"), tools, ...(policy ? { onDivergence: policy } : {}) });

    const failed = await replay(undefined);
    expect(failed.status).toBe("failed");
    expect(failed.error?.code).toBe("conflict");
    expect(failed.divergences.map((d) => `${d.toolName}:${d.replay}`)).toEqual(["lookup:safe"]);
    expect(effects(dir, "lookup")).toEqual(["alpha"]);

    const safe = await replay("live-safe");
    expect(safe.status).toBe("completed");
    expect(safe.divergences.map((d) => d.toolName)).toEqual(["lookup", "charge"]);
    expect(safe.live).toBe(1);
    expect(effects(dir, "lookup")).toEqual(["alpha", "beta"]);
    expect(effects(dir, "charge")).toEqual(["card-1"]);

    const asked: string[] = [];
    const decided = await replay((divergence) => {
      asked.push(divergence.toolName);
      return divergence.toolName === "charge" ? "run" : "skip";
    });
    expect(asked).toEqual(["lookup", "charge"]);
    expect(decided.status).toBe("completed");
    expect(effects(dir, "lookup")).toEqual(["alpha", "beta"]);
    expect(effects(dir, "charge")).toEqual(["card-1", "card-2"]);

    // live-safe mode runs safe tools live even when recorded, and answers the unsafe one.
    const liveSafe = await replayRun("run-original", { source, sessions: storage.sessions, agent: fixtureAgent(dir), context: fixtureContext(storage, "ignored"), tools: "live-safe" });
    expect({ answered: liveSafe.answered, live: liveSafe.live }).toEqual({ answered: 1, live: 1 });
    expect(effects(dir, "lookup")).toEqual(["alpha", "beta", "alpha"]);
    expect(effects(dir, "charge")).toEqual(["card-1", "card-2"]);
  });

  it("REPLAY-1 a replay holds its appends until a tool with effects runs live: that call's start is committed before it runs (SES-4)", async () => {
    const { dir, storage, source } = await recorded();
    const diverging = [RECORDED_STEPS[0]!, { toolCalls: [{ name: "charge", arguments: { key: "card-2" } }] }, { text: "Charged card-2." }];
    const agent = fixtureAgent(dir, diverging);
    const seen: string[][] = [];
    const charge = agent.extraTools!.find((tool) => tool.name === "charge")!;
    const spying: typeof charge = {
      ...charge,
      async execute(...args) {
        // What a crash at this moment would leave: the committed events of the replay's session.
        const reader = (await storage.sessions.openUnleased({ address: { projectId: PROJECT, sessionKey: "replay-replay-live" }, create: false }))!;
        seen.push((await reader.readRun("replay-live")).map((event) => event.type));
        await reader.close();
        return charge.execute(...args);
      },
    };
    const result = await replayRun("run-original", {
      source, sessions: storage.sessions, agent: { ...agent, extraTools: agent.extraTools!.map((tool) => (tool === charge ? spying : tool)) }, context: fixtureContext(storage, "x"), tools: "recorded", runId: "replay-live", onDivergence: () => "run",
    });
    expect({ status: result.status, answered: result.answered, live: result.live }).toEqual({ status: "completed", answered: 1, live: 1 });
    expect(effects(dir, "charge")).toEqual(["card-1", "card-2"]);
    // Everything before the live call (the answered lookup included) was committed with it, the start last.
    expect(seen).toHaveLength(1);
    expect(seen[0]!.slice(0, 2)).toEqual(["run_started", "user_message"]);
    expect(seen[0]).toContain("tool_result");
    expect(seen[0]!.at(-1)).toBe("tool_started");
  });

  it("REPLAY-1 a replay killed mid-run loses its held events, and running it again gives the same result", async () => {
    const { dir, storage, source } = await recorded();
    const replay = (runId: string) => replayRun("run-original", { source, sessions: storage.sessions, agent: fixtureAgent(dir), context: fixtureContext(storage, "x"), tools: "recorded", runId });
    const whole = await replay("replay-whole");
    const child = spawn(process.execPath, [bundledFixture(CRASH_CHILD), JSON.stringify({ dir, runId: "replay-crashed" })], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
    const reached = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), CHILD_LIMIT_MS);
      child.stdout.on("data", (data: Buffer) => data.toString().includes('"last-step"') && (clearTimeout(timer), resolve(true)));
      void exited.then(() => (clearTimeout(timer), resolve(false)));
    });
    child.kill("SIGKILL");
    expect({ reached, stderr }).toEqual({ reached: true, stderr: "" });
    expect(await exited).toBe("SIGKILL");
    // Two steps were answered in the child; none of the replay run's events was committed.
    const crashed = (await storage.sessions.openUnleased({ address: { projectId: PROJECT, sessionKey: "replay-replay-crashed" }, create: false }))!;
    expect(await crashed.readRun("replay-crashed")).toEqual([]);
    await crashed.close();
    // Its id is taken (its session exists); run again under another id, the replay comes out the same.
    await expect(replay("replay-crashed")).rejects.toMatchObject({ code: "conflict" });
    const rerun = await replay("replay-rerun");
    const outcome = (result: typeof whole) => ({ status: result.status, answered: result.answered, live: result.live, divergences: result.divergences, diff: { ...result.diff, latencyMs: null } });
    expect(outcome(rerun)).toEqual(outcome(whole));
    const shape = async (result: typeof whole) => {
      const reader = (await storage.sessions.openUnleased({ address: result.address, create: false }))!;
      const events = await reader.readRun(result.runId);
      await reader.close();
      return events.map((event) => `${event.seq} ${event.type} ${event.eventId.replace(result.runId, "R")}`);
    };
    expect(await shape(rerun)).toEqual(await shape(whole));
    expect(effects(dir, "charge")).toEqual(["card-1"]);
    expect(effects(dir, "lookup")).toEqual(["alpha"]);
  }, 3 * CHILD_LIMIT_MS);

  it("REPLAY-1 REPLAY-2 a later run's replay holds the history before it, read through to the original's log (forkLog), never the run itself, then its record", async () => {
    const { dir, storage, source } = await recorded();
    const second = openAgent({ ...fixtureAgent(dir), sessionKey: SESSION_KEY, sessions: storage.sessions });
    for await (const chunk of second.run({ prompt: "Again.", runId: "run-second" }, fixtureContext(storage, "run-second"))) void chunk;
    const charged = effects(dir, "charge");
    const result = await replayRun("run-second", { source, sessions: storage.sessions, agent: fixtureAgent(dir), context: fixtureContext(storage, "x", false), tools: "recorded" });
    expect({ status: result.status, live: result.live, same: result.diff.same }).toEqual({ status: "completed", live: 0, same: true });
    expect(effects(dir, "charge")).toEqual(charged);
    const sourceEvents = await source.readAfter(0);
    const startSeq = sourceEvents.find((event) => event.type === "run_started" && event.runId === "run-second")!.seq;
    const replay = (await storage.sessions.openUnleased({ address: result.address, create: false }))!;
    const replayEvents = await replay.readAfter(0);
    await replay.close();
    const prefix = (events: typeof sourceEvents) => events.filter((event) => event.seq < startSeq).map(({ seq, eventId, runId }) => ({ seq, eventId, runId }));
    expect(prefix(replayEvents)).toEqual(prefix(sourceEvents));
    expect(prefix(replayEvents).map((event) => event.runId)).toContain("run-original");
    // Then the replay's record (what it replays, for the viewer's diff) and its own run.
    const [record, ...run] = replayEvents.filter((event) => event.seq >= startSeq);
    expect(replayRecordOf(record!)).toEqual({ of: { address: source.address, runId: "run-second" }, runId: result.runId, tools: "recorded", price: null });
    expect(new Set(run.map((event) => event.runId))).toEqual(new Set([result.runId]));
  });

  it("REPLAY-1 an unknown run is not_found", async () => {
    const { dir, storage, source } = await recorded();
    await expect(replayRun("nope", { source, sessions: storage.sessions, agent: fixtureAgent(dir), context: fixtureContext(storage, "x"), tools: "recorded" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("REPLAY-2 the diff reports final text, tool sequence, approvals, tokens, cost and latency", async () => {
    const { dir, storage, source } = await recorded();
    const steps = [RECORDED_STEPS[0]!, { text: "I will not charge.", usage: { input: 300, output: 30 } }];
    const ledger = fixtureContext(storage, "ledger").tokenUsage;
    const spent = await ledger.total();
    const result = await replayRun("run-original", { source, sessions: storage.sessions, agent: fixtureAgent(dir, steps), context: fixtureContext(storage, "x"), tools: "recorded", price: { input: 1, output: 2 } });
    const { diff } = result;
    // The project's ledger counts the replay's model calls (summed per model, one write per replay).
    expect(await ledger.total()).toEqual({ input: spent.input + 400, output: spent.output + 40, cacheRead: 0, cacheWrite: 0, total: spent.total + 440 });
    expect(diff.same).toBe(false);
    expect(diff.finalText).toEqual({ original: "Charged card-1 after looking up alpha.", replay: "I will not charge.", equal: false });
    expect(diff.toolSequence).toEqual({ original: ['lookup({"key":"alpha"})', 'charge({"key":"card-1"})'], replay: ['lookup({"key":"alpha"})'], equal: false });
    // The original asked a person for `charge`; the replay needed no decision.
    expect(diff.approvals).toEqual({ original: ["approved"], replay: [], equal: false });
    expect(diff.tokens.original).toEqual({ input: 360, output: 30, total: 390 });
    expect(diff.tokens.replay).toEqual({ input: 400, output: 40, total: 440 });
    expect(diff.tokens.delta).toBe(50);
    expect(diff.costUsd.original).toBeCloseTo((360 * 1 + 30 * 2) / 1e6, 12);
    expect(diff.costUsd.delta).toBeCloseTo((40 * 1 + 10 * 2) / 1e6, 12);
    expect(diff.steps).toEqual({ original: 3, replay: 2, equal: false });
    expect(diff.latencyMs.original).toBeGreaterThanOrEqual(0);
    expect(diff.latencyMs.delta).toBe(diff.latencyMs.replay - diff.latencyMs.original);
    expect(diff.status).toEqual({ original: "completed", replay: "completed", equal: true });
  });
});
