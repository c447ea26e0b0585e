import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { counting, killAtSecondTickThenResume } from "./fixtures/budget-kill.js";

// Every call reports 20 input and 30 output tokens (50).
const usage = { input: 20, output: 30, cacheRead: 0, cacheWrite: 0, total: 50 };
const tick = (n: number): OfflineStep => ({ toolCalls: [{ id: `tick_${n}`, name: "tick", arguments: {} }], usage });
const tickTool = (onTick: () => void = () => undefined) => ({
  name: "tick", label: "tick", description: "counts", parameters: Type.Object({}),
  async execute() {
    onTick();
    return { content: [{ type: "text" as const, text: "ticked" }] };
  },
});

function withStorage(body: (storage: ReturnType<typeof createSqliteStorage>, directory: string) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "sh-budget-deferred-"));
  const storage = createSqliteStorage({ directory });
  return body(storage, directory).finally(async () => {
    await storage.close();
    rmSync(directory, { recursive: true, force: true });
  });
}

const limits = [{ scope: "run" as const, tokens: 1_000_000 }, { scope: "project" as const, tokens: 1_000_000 }];

describe("BUD-2 a model call is settled with the next reservation", () => {
  it("BUD-2 three model calls reserved alone (leaseCalls 1) take four ledger steps (three finishAndReserve — the first releases the call's lease id a dead process could have left — and the last settle), and the run ends with everything settled, nothing held", async () => {
    await withStorage(async (storage) => {
      const { ledger, calls } = counting(storage.budgets);
      const model = createOfflineModel({ steps: [tick(0), tick(1), { text: "done", usage }], chunkSize: 64 });
      const node = createAgentNode({ models: model, retryDelayMs: 0, tools: ["tick"], extraTools: [tickTool()], extraToolCatalog: [{ id: "tick", autoApprove: true }], compaction: false, budget: { limits, maxOutputTokens: 100, ledger, leaseCalls: 1 } });
      const context = createNodeContext({ projectId: "deferred", storage, runId: "run-deferred" });
      const { output } = await runStreamNode(node, { prompt: "go" }, context);
      expect(output.errCode).toBe(0);
      expect({ reserve: calls.reserve, finishAndReserve: calls.finishAndReserve, settle: calls.settle, release: calls.release }).toEqual({ reserve: undefined, finishAndReserve: 3, settle: 1, release: undefined });
      for (const key of [{ scope: "run" as const, id: "run-deferred" }, { scope: "project" as const, id: "deferred" }]) {
        expect(await storage.budgets.read(key, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 150, costMicros: 0 }, reserved: { tokens: 0, costMicros: 0 } }));
      }
    });
  });

  it("BUD-2 a ledger without finishAndReserve is settled after each call, as before", async () => {
    await withStorage(async (storage) => {
      const { ledger: full, calls } = counting(storage.budgets);
      const { finishAndReserve: _omitted, ...ledger } = full;
      const model = createOfflineModel({ steps: [tick(0), tick(1), { text: "done", usage }], chunkSize: 64 });
      const node = createAgentNode({ models: model, retryDelayMs: 0, tools: ["tick"], extraTools: [tickTool()], extraToolCatalog: [{ id: "tick", autoApprove: true }], compaction: false, budget: { limits, maxOutputTokens: 100, ledger } });
      await runStreamNode(node, { prompt: "go" }, createNodeContext({ projectId: "plain", storage, runId: "run-plain" }));
      expect({ reserve: calls.reserve, settle: calls.settle, finishAndReserve: calls.finishAndReserve }).toEqual({ reserve: 3, settle: 3, finishAndReserve: undefined });
      expect(await storage.budgets.read({ scope: "run", id: "run-plain" }, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 150, costMicros: 0 }, reserved: { tokens: 0, costMicros: 0 } }));
    });
  });

  it("BUD-2 a consumer that stops reading the run's stream mid-run leaves the calls made settled, nothing held", async () => {
    await withStorage(async (storage) => {
      let ticks = 0;
      const model = createOfflineModel({ steps: [tick(0), tick(1), { text: "done", usage }], chunkSize: 64 });
      const node = createAgentNode({ models: model, retryDelayMs: 0, tools: ["tick"], extraTools: [tickTool(() => ticks++)], extraToolCatalog: [{ id: "tick", autoApprove: true }], compaction: false, budget: { limits, maxOutputTokens: 100 } });
      const context = createNodeContext({ projectId: "stopped", storage, runId: "run-stopped" });
      for await (const _chunk of node.stream({ prompt: "go" }, context)) if (ticks === 1) break;
      expect(await storage.budgets.read({ scope: "run", id: "run-stopped" }, Date.now())).toEqual(expect.objectContaining({ spent: { tokens: 50, costMicros: 0 }, reserved: { tokens: 0, costMicros: 0 } }));
    });
  });
});

describe("BUD-2 a host killed while a call's settle waits", () => {
  it("BUD-2 SIGKILL during a tool call leaves the call held (its worst case, never less than it spent); the resumed run settles it once: spent is exactly the three calls, nothing held", async () => {
    // The second tick hangs: call 0 is settled (with call 1's reservation), call 1 waits for its settle.
    const { killed, resumed, ticks, final } = await killAtSecondTickThenResume("killed", "conv-killed", { limits: [{ scope: "conversation", tokens: 100_000 }], maxOutputTokens: 100 });
    expect(killed.spent.tokens).toBe(50);
    // The held worst case of call 1 covers what it spent (50).
    expect(killed.reserved.tokens).toBeGreaterThanOrEqual(50);
    // A fresh process resumes the same run: call 1 is replayed from the log (not asked again) and settled once.
    expect(resumed).toMatchObject({ runId: "killed-0", status: "completed", usage: 150 });
    // The tick cut by the kill is not run again (its replay policy is "never"); the first one stands.
    expect(ticks).toBe(1);
    expect(final).toEqual(expect.objectContaining({ spent: { tokens: 150, costMicros: 0 }, reserved: { tokens: 0, costMicros: 0 } }));
  }, 120_000);
});
