import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createMemoryProjectConfigurationStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { selectAgentModel } from "../../src/domain/agent/model-selection.js";
import { agentConfigurationFromSnapshot } from "../../src/domain/configuration/agent-configuration.js";
import {
  createProjectConfigurationSnapshot,
  parseProjectConfigurationSnapshot,
  takeProjectConfigurationSnapshot,
} from "../../src/domain/configuration/snapshot.js";
import type { ProjectConfigurationStore } from "../../src/ports/project-configuration-store.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { RUN_SNAPSHOT_PREFIX, snapshotForRun } from "../../src/domain/configuration/run-snapshot.js";

const system = { id: "house", provider: "openai", model: "gpt-house", apiKind: "openai-responses" as const, system: true };
const thirdParty = { id: "byok", provider: "anthropic", model: "claude-x", apiKind: "anthropic-messages" as const, system: false, apiKeyRef: "ANTHROPIC_KEY", baseUrl: "https://api.example.test" };

async function project(store: ProjectConfigurationStore, projectId: string) {
  await store.setFields(projectId, [{ key: "title", type: "string", default: "Untitled" }, { key: "STEAMHARNESS_AGENT_MODELS", type: "agent-models", allowThirdParty: false }], { expectedRevision: 0 });
  await store.create(projectId, { configurationId: "main", name: "Main", values: { STEAMHARNESS_AGENT_MODELS: [thirdParty, system] } });
}

const adapters: Array<[string, () => { store: ProjectConfigurationStore; dispose: () => Promise<void> }]> = [
  ["memory", () => ({ store: createMemoryProjectConfigurationStore(), dispose: async () => {} })],
  [
    "SQLite",
    () => {
      const dataDir = mkdtempSync(join(tmpdir(), "steamharness-snapshot-"));
      const store = createSqliteProjectConfigurationStore({ dataDir });
      return { store, dispose: async () => { await store.close?.(); rmSync(dataDir, { recursive: true, force: true }); } };
    },
  ],
];

describe.each(adapters)("CFG-2 project configuration snapshot (%s store)", (_name, make) => {
  it("CFG-2 a run's snapshot is taken at its start and later configuration changes do not alter it", async () => {
    const { store, dispose } = make();
    try {
      const clock = createFixedClock(Date.UTC(2026, 10, 30, 6));
      await project(store, "p");
      const atStart = await takeProjectConfigurationSnapshot(store, "p", { clock });
      const saved = JSON.stringify(atStart);
      expect(atStart).toEqual({
        version: 1,
        projectId: "p",
        configurationId: "main",
        configurationName: "Main",
        configurationRevision: 1,
        projectRevision: 2,
        takenAt: Date.UTC(2026, 10, 30, 6),
        values: { title: "Untitled", STEAMHARNESS_AGENT_MODELS: [thirdParty, system] },
        STEAMHARNESS_AGENT_MODELS: [thirdParty, system],
        agentModelPolicy: { allowThirdParty: false },
      });

      // The configuration changes while the run is paused: other models, the policy lifted, then deleted.
      clock.advance(60_000);
      await store.update("p", "main", { expectedRevision: 1, values: { title: "Changed", STEAMHARNESS_AGENT_MODELS: [thirdParty] } });
      const revision = (await store.read("p")).revision;
      await store.setFields("p", [{ key: "title", type: "string" }, { key: "STEAMHARNESS_AGENT_MODELS", type: "agent-models", allowThirdParty: true }], { expectedRevision: revision });
      const now = await takeProjectConfigurationSnapshot(store, "p", { clock });
      expect(now.agentModelPolicy).toEqual({ allowThirdParty: true });
      expect(now.STEAMHARNESS_AGENT_MODELS).toEqual([thirdParty]);
      await store.delete("p", "main", { expectedRevision: 2 });

      expect(JSON.stringify(atStart)).toBe(saved);
      const resumed = parseProjectConfigurationSnapshot(JSON.parse(saved));
      expect(resumed).toEqual(atStart);
      // The resumed run selects from the original models under the original policy.
      const agentView = agentConfigurationFromSnapshot(resumed, (ref) => (ref === "ANTHROPIC_KEY" ? "sk-test" : undefined));
      expect(selectAgentModel({}, agentView)).toEqual({ source: "configured", entry: expect.objectContaining({ id: "house", source: "system" }) });
      expect(() => selectAgentModel({ provider: "x", model: "y", apiKey: "k" }, agentView)).toThrow(expect.objectContaining({ code: "input_validation" }));
      expect(selectAgentModel({}, agentConfigurationFromSnapshot(now, () => "sk-test"))).toEqual({
        source: "configured",
        entry: expect.objectContaining({ id: "byok", source: "third-party", apiKey: "sk-test" }),
      });
    } finally {
      await dispose();
    }
  });

  it("CFG-2 snapshots are frozen copies: mutating one changes neither the store nor the next snapshot", async () => {
    const { store, dispose } = make();
    try {
      await project(store, "p");
      const clock = createFixedClock(1);
      const snapshot = await takeProjectConfigurationSnapshot(store, "p", { clock });
      expect(Object.isFrozen(snapshot) && Object.isFrozen(snapshot.values) && Object.isFrozen(snapshot.STEAMHARNESS_AGENT_MODELS[0])).toBe(true);
      expect(() => {
        (snapshot.STEAMHARNESS_AGENT_MODELS as unknown as unknown[]).push(system);
      }).toThrow(TypeError);
      expect((await takeProjectConfigurationSnapshot(store, "p", { clock })).STEAMHARNESS_AGENT_MODELS).toHaveLength(2);
    } finally {
      await dispose();
    }
  });
});

describe("CFG-2 snapshot rules", () => {
  it("CFG-2 a named configuration is snapshotted without switching; a deleted one is not_found; none current gives defaults", async () => {
    const store = createMemoryProjectConfigurationStore();
    await project(store, "p");
    await store.create("p", { configurationId: "alt", name: "Alt", values: { title: "Alt" } });
    const overview = await store.read("p");
    const alt = createProjectConfigurationSnapshot(overview, { configurationId: "alt", takenAt: 5 });
    expect([alt.configurationId, alt.values.title, alt.STEAMHARNESS_AGENT_MODELS]).toEqual(["alt", "Alt", []]);
    expect((await store.read("p")).currentConfigurationId).toBe("main");
    await store.delete("p", "main", { expectedRevision: 1 });
    const after = await store.read("p");
    expect(() => createProjectConfigurationSnapshot(after, { configurationId: "main", takenAt: 6 })).toThrow(expect.objectContaining({ code: "not_found" }));
    const none = createProjectConfigurationSnapshot(after, { takenAt: 7 });
    expect([none.configurationId, none.configurationRevision, none.values]).toEqual([null, 0, { title: "Untitled" }]);
    expect(none.agentModelPolicy).toEqual({ allowThirdParty: false });
  });

  it("CFG-2 a saved snapshot that is not a version-1 snapshot is refused with its path", () => {
    const good = createProjectConfigurationSnapshot({ projectId: "p", revision: 0, fields: [], currentConfigurationId: null, configurations: [] }, { takenAt: 1 });
    expect(good.agentModelPolicy).toEqual({ allowThirdParty: true });
    const broken = { ...JSON.parse(JSON.stringify(good)), agentModelPolicy: { allowThirdParty: "no" } };
    expect(() => parseProjectConfigurationSnapshot(broken)).toThrow(expect.objectContaining({ code: "input_validation", field: "snapshot/agentModelPolicy/allowThirdParty" }));
    expect(() => parseProjectConfigurationSnapshot({ ...good, version: 2 })).toThrow(expect.objectContaining({ code: "input_validation" }));
  });

  it("CFG-2 every run records its snapshot: the same run id gets it back after changes, a new run sees the change", async () => {
    const store = createMemoryProjectConfigurationStore();
    const storage = new MemoryStorage();
    const clock = createFixedClock(10);
    await project(store, "p");
    const first = await snapshotForRun({ store, values: storage.values, projectId: "p", runId: "run-1", clock });
    await store.update("p", "main", { expectedRevision: 1, values: { title: "Changed" } });
    clock.advance(5);
    const again = await snapshotForRun({ store, values: storage.values, projectId: "p", runId: "run-1", clock });
    expect(again).toEqual(first);
    expect(again.values.title).toBe("Untitled");
    const other = await snapshotForRun({ store, values: storage.values, projectId: "p", runId: "run-2", clock });
    expect([other.values.title, other.takenAt]).toEqual(["Changed", 15]);
    await storage.values.set("p", `${RUN_SNAPSHOT_PREFIX}run-1`, { broken: true });
    await expect(snapshotForRun({ store, values: storage.values, projectId: "p", runId: "run-1", clock })).rejects.toMatchObject({ code: "input_validation" });
  });

  it("CFG-2 a new run (newRun, a run id made for it) takes and saves its snapshot without looking one up; a later ask of that run id gets it back", async () => {
    const store = createMemoryProjectConfigurationStore();
    const storage = new MemoryStorage();
    const clock = createFixedClock(10);
    await project(store, "p");
    const asked: string[] = [];
    const values = { ...storage.values, get: (projectId: string, name: string) => (asked.push(name), storage.values.get(projectId, name)) } as typeof storage.values;
    const first = await snapshotForRun({ store, values, projectId: "p", runId: "run-new", clock, newRun: true });
    expect(asked).toEqual([]);
    await store.update("p", "main", { expectedRevision: 1, values: { title: "Changed" } });
    expect(await snapshotForRun({ store, values, projectId: "p", runId: "run-new", clock })).toEqual(first);
    expect(asked).toEqual([`${RUN_SNAPSHOT_PREFIX}run-new`]);
  });
});
