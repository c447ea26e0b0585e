import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../fixtures/otlp-receiver.js";
import { startTestSdk } from "../fixtures/otel-sdk.js";
import { describePostgres } from "../fixtures/postgres.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { createOpenTelemetry } from "../../src/adapters/driven/opentelemetry/open-telemetry.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { postgresSessionLockKey } from "../../src/adapters/driven/postgres/sessions/postgres-session-lease.js";
import { createAgentSessionHost } from "../../src/agent.js";
import { createHarnessRuntime } from "../../src/compose/runtime.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";

const CHILD = join(import.meta.dirname, "fixtures", "lease-host-child.ts");

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

/** Runs one host process; resolves its host id once it said it, and its exit. */
function hostProcess(config: Record<string, unknown>): { hostId: Promise<string>; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>; kill(): void } {
  const child = spawn(process.execPath, [bundledFixture(CHILD), JSON.stringify({ receiver: receiver.url, ...config })], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (part: Buffer) => (stderr += part));
  const hostId = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (part: Buffer) => {
      stdout += part;
      const line = stdout.split("\n").find((entry) => entry.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { hostId: string }).hostId);
    });
    child.on("exit", () => reject(new Error(`host exited before opening: ${stderr}`)));
  });
  hostId.catch(() => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr })));
  return { hostId, exited, kill: () => child.kill("SIGKILL") };
}

const leaseSpans = (conversationId: string) => receiver.spans.filter((span) => span.name.startsWith("steamharness.lease.") && span.attributes["steamharness.session.conversation_id"] === conversationId);

/** Host A opens and is SIGKILLed holding the lease; host B takes it over and closes cleanly; host C then simply acquires. */
async function killTakeOverReopen(conversationId: string, extra: Record<string, unknown>): Promise<{ a: string; b: string; c: string; spans: ReceivedSpan[] }> {
  const dir = tempDirRemovedAfterAll("obs-lease-");
  const base = { dir, conversationId, ...extra };
  const hostA = hostProcess({ ...base, service: "host-a", hang: true });
  const a = await hostA.hostId;
  // Killed once its acquired span is in: the child flushed it before saying its id, but under a
  // loaded suite the export's HTTP request could still be on its way when SIGKILL landed.
  await receiver.waitFor(() => leaseSpans(conversationId).some((span) => span.service === "host-a"));
  hostA.kill();
  expect((await hostA.exited).signal).toBe("SIGKILL");
  const hostB = hostProcess({ ...base, service: "host-b", hang: false });
  const b = await hostB.hostId;
  expect(await hostB.exited).toMatchObject({ code: 0, stderr: "" });
  const hostC = hostProcess({ ...base, service: "host-c", hang: false });
  const c = await hostC.hostId;
  expect(await hostC.exited).toMatchObject({ code: 0, stderr: "" });
  await receiver.waitFor(() => leaseSpans(conversationId).length >= 3);
  return { a, b, c, spans: leaseSpans(conversationId) };
}

function expectTakeover({ a, b, c, spans }: { a: string; b: string; c: string; spans: ReceivedSpan[] }, conversationId: string): void {
  const address = { "steamharness.project.id": "obs-lease", "steamharness.session.conversation_id": conversationId, "steamharness.session.key": "agent" };
  expect(spans.map((span) => [span.service, span.name])).toEqual([
    ["host-a", "steamharness.lease.acquired"],
    ["host-b", "steamharness.lease.takeover"],
    ["host-c", "steamharness.lease.acquired"],
  ]);
  expect(spans[0]!.attributes).toEqual({ ...address, "steamharness.lease.event": "acquired", "steamharness.lease.owner": a });
  expect(spans[1]!.attributes).toEqual({ ...address, "steamharness.lease.event": "takeover", "steamharness.lease.owner": b, "steamharness.lease.previous_owner": a });
  // B released its lease on close: C takes nothing over.
  expect(spans[2]!.attributes).toEqual({ ...address, "steamharness.lease.event": "acquired", "steamharness.lease.owner": c });
  for (const span of spans) {
    expect(span.kind).toBe(1);
    expect(span.parentSpanId).toBe("");
    expect(span.endNs >= span.startNs).toBe(true);
  }
}

describe("OBS-2 session-host lease spans (SQLite)", () => {
  it("OBS-2: a host's lease outside any run is a short span — acquired, a takeover after its holder was SIGKILLed (with both owner ids), acquired after a clean release", async () => {
    const conversationId = `conv-lease-sqlite-${process.pid}`;
    expectTakeover(await killTakeOverReopen(conversationId, {}), conversationId);
  }, 90_000);
});

describePostgres("OBS-2 session-host lease spans (PostgreSQL)", (database) => {
  it("OBS-2: on PostgreSQL, host B takes over the lease of SIGKILLed host A: a takeover span naming both hosts", async () => {
    const conversationId = `conv-lease-pg-${process.pid}`;
    expectTakeover(await killTakeOverReopen(conversationId, { postgres: { url: database.url, schema: database.schema } }), conversationId);
  }, 90_000);

  it("OBS-2: a host whose lease connection dies reports the lease lost, once, as a span", async () => {
    const conversationId = `conv-lease-lost-${process.pid}`;
    const sdk = startTestSdk(receiver.url, "host-lost", { scheduledDelayMillis: 20 });
    const storage = await createPostgresStorage({ connectionString: database.url, schema: database.schema });
    const runtime = { ...createHarnessRuntime(), telemetry: createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }) };
    const host = await createAgentSessionHost(conversationId, { projectId: "obs-lease", runtime, storage, models: createOfflineModel({ steps: [] }), inboxPollMs: 20 });
    try {
      const { classid, objid } = postgresSessionLockKey(database.schema, { projectId: "obs-lease", conversationId, sessionKey: "agent" });
      const { rows } = await database.raw.query<{ pid: number }>("select pid from pg_locks where locktype = 'advisory' and objsubid = 1 and classid = $1 and objid = $2", [classid, objid]);
      expect(rows).toHaveLength(1);
      await database.raw.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
      await sdk.flush();
      await receiver.waitFor(() => leaseSpans(conversationId).some((span) => span.name === "steamharness.lease.lost"));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await sdk.flush();
      const spans = leaseSpans(conversationId);
      expect(spans.map((span) => span.name)).toEqual(["steamharness.lease.acquired", "steamharness.lease.lost"]);
      expect(spans[1]!.attributes).toEqual({ "steamharness.lease.event": "lost", "steamharness.project.id": "obs-lease", "steamharness.session.conversation_id": conversationId, "steamharness.session.key": "agent", "steamharness.lease.owner": host.hostId });
    } finally {
      await host.close().catch(() => undefined);
      await storage.close();
      await sdk.shutdown();
    }
  }, 60_000);
});
