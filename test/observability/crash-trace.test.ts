import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../fixtures/otlp-receiver.js";
import { describePostgres } from "../fixtures/postgres.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

// Bundled (plain JavaScript, our sources inlined): each child starts with node, not through tsx.
const CHILD = bundledFixture(join(import.meta.dirname, "fixtures", "traced-child.ts"));

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

interface ChildRun {
  signal: NodeJS.Signals | null;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the traced child; with `killWhen`, SIGKILLs it once the predicate holds. */
function runChild(config: Record<string, unknown>, killWhen?: () => Promise<void>): Promise<ChildRun> {
  const child = spawn(process.execPath, [CHILD, JSON.stringify({ receiver: receiver.url, ...config })], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (part: Buffer) => (stdout += part));
  child.stderr.on("data", (part: Buffer) => (stderr += part));
  if (killWhen) void killWhen().then(() => child.kill("SIGKILL"), () => child.kill("SIGKILL"));
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** The spans host A has ended, and exported, when its tool is running. */
const HOST_A_SPANS = ["chat gpt-obs", "steamharness.run"];

/** Polls until a file exists. */
async function fileAppears(path: string): Promise<void> {
  for (let i = 0; i < 600 && !existsSync(path); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!existsSync(path)) throw new Error(`${path} never appeared`);
}

/**
 * Host A runs the agent until its tool is running (after the model's tool call was committed and
 * A's spans so far were exported), then is SIGKILLed; host B resumes the same runId.
 */
async function crashAndResume(runId: string, dir: string, extra: Record<string, unknown>): Promise<ReceivedSpan[]> {
  const ofRun = (spans: ReceivedSpan[]) => spans.filter((span) => span.attributes["steamharness.run.id"] === runId);
  const killed = await runChild({ dir, runId, service: "host-a", hang: true, ...extra }, async () => {
    await fileAppears(join(dir, "tool-host-a"));
    // Both of A's ended spans received: its root (the run-start flush) and its model call (the
    // batch after it). They are separate exports, which can land in either order on a loaded
    // machine; killing A once only the model call had landed lost the root still in flight.
    await receiver.waitFor((spans) => HOST_A_SPANS.every((name) => ofRun(spans).some((span) => span.name === name && span.service === "host-a")));
  });
  expect(killed.signal).toBe("SIGKILL");
  const resumed = await runChild({ dir, runId, service: "host-b", hang: false, ...extra });
  expect(resumed.stderr).toBe("");
  expect(resumed.code).toBe(0);
  expect(existsSync(join(dir, "tool-host-b"))).toBe(true);
  return ofRun(receiver.spans);
}

/** Exactly one trace id; every span's parent was exported; the resumed part says it recovered. */
function expectOneTree(spans: ReceivedSpan[], runId: string): void {
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  const ids = new Set(spans.map((span) => span.spanId));
  const orphans = spans.filter((span) => span.parentSpanId !== "" && !ids.has(span.parentSpanId));
  expect(orphans.map((span) => span.name)).toEqual([]);
  expect(spans.filter((span) => span.parentSpanId === "").map((span) => span.name)).toEqual(["steamharness.run"]);
  // Host A: the root and its model call (its invoke_agent and tool span died with it); host B: its part, resumed.
  const byHost = (service: string) => spans.filter((span) => span.service === service).map((span) => span.name).sort();
  expect(byHost("host-a")).toEqual(HOST_A_SPANS);
  expect(byHost("host-b")).toEqual(["chat gpt-obs", "execute_tool slow", "invoke_agent agent"]);
  const resumedPart = spans.find((span) => span.name === "invoke_agent agent")!;
  expect(resumedPart.events.map((event) => event.name)).toEqual(["steamharness.run.resumed", "steamharness.lease.takeover"]);
  expect(resumedPart.events[0]!.attributes["steamharness.run.resumed_after"]).toBe("interrupted");
  // The takeover of the dead host's lease is in the same trace, on the resuming part's span.
  expect(resumedPart.events[1]!.attributes).toEqual({
    "steamharness.lease.event": "takeover",
    "steamharness.project.id": "obs4",
    "steamharness.session.conversation_id": "conv-4",
    "steamharness.session.key": "agent",
    "steamharness.lease.owner": runId,
    "steamharness.lease.previous_owner": runId,
  });
  expect(resumedPart.attributes["steamharness.run.status"]).toBe("completed");
}

describe("OBS-4 one trace per run across a crash", () => {
  it("OBS-4: SIGKILL mid-tool, resumed in a second process on SQLite: one trace id for the run, every parent span exists, the lease takeover an event of the trace", async () => {
    const dir = tempDirRemovedAfterAll("obs4-sqlite-");
    expectOneTree(await crashAndResume("run-obs4-sqlite", dir, {}), "run-obs4-sqlite");
  }, 90_000);
});

describePostgres("OBS-4 one trace per run across hosts (PostgreSQL)", (database) => {
  it("OBS-4: SIGKILL mid-tool on host A, resumed on host B sharing PostgreSQL: one trace id, every parent span exists, the lease takeover an event of the trace", async () => {
    const dir = tempDirRemovedAfterAll("obs4-pg-");
    expectOneTree(await crashAndResume("run-obs4-pg", dir, { postgres: { url: database.url, schema: database.schema } }), "run-obs4-pg");
  }, 90_000);
});
