import type { JsonValue } from "../domain/json.js";
import type { ProjectConfigurationStore } from "../ports/project-configuration-store.js";
import {
  defineContract,
  errorCode,
  uniqueId,
  type ContractCases,
  type ContractExpect,
  type ContractFactory,
  type ContractOptions,
  type ContractTestApi,
} from "./contract-support.js";

/** Raw reads of a configuration backend that bypass the adapter under test. */
export interface ProjectConfigurationStoreInspect {
  /** The stored record (tombstones included) or `null` when the id was never stored. */
  configuration(projectId: string, configurationId: string): Promise<{ revision: number; deleted: boolean; values: JsonValue } | null>;
}

type Store = ProjectConfigurationStore;
const model = (id: string, system = true) => ({ id, provider: "openai", model: `m-${id}`, apiKind: "openai-responses", system });

async function seeded(store: Store, values: Record<string, JsonValue> = { title: "Roadmap" }) {
  const projectId = uniqueId("project");
  await store.setFields(projectId, [{ key: "title", type: "string", required: true }, { key: "columns", type: "integer", default: 3 }, { key: "mode", type: "select", options: ["board", "list"] }], { expectedRevision: 0 });
  const created = await store.create(projectId, { configurationId: "main", name: "Main", values });
  return { projectId, created };
}

async function unchanged(store: Store, projectId: string, expect: ContractExpect, action: () => Promise<unknown>, code: string) {
  const before = await store.read(projectId);
  expect(await errorCode(action)).toBe(code);
  expect(await store.read(projectId)).toEqual(before);
}

const cases: ContractCases<Store, ProjectConfigurationStoreInspect> = {
  "an unknown project reads as revision 0 with nothing in it": async ({ store, expect }) => {
    const projectId = uniqueId("project");
    expect(await store.read(projectId)).toEqual({ projectId, revision: 0, fields: [], currentConfigurationId: null, configurations: [] });
    expect(await store.get(projectId, "main")).toBeNull();
    expect(await store.lookup(projectId, "main")).toEqual({ status: "absent", configurationId: "main" });
  },

  "create starts at revision 1 and the first configuration becomes current": async ({ store, inspect, expect }) => {
    const { projectId, created } = await seeded(store);
    expect(created).toEqual(expect.objectContaining({ projectId, configurationId: "main", name: "Main", values: { title: "Roadmap" }, revision: 1 }));
    expect(Number.isFinite(created.createdAt) && created.updatedAt >= created.createdAt).toBe(true);
    const second = await store.create(projectId, { configurationId: "alt", name: "Alt", values: { title: "Other" } });
    expect(second.revision).toBe(1);
    const overview = await store.read(projectId);
    expect(overview.currentConfigurationId).toBe("main");
    expect(overview.configurations.map((c) => c.configurationId)).toEqual(["main", "alt"]);
    if (inspect) expect(await inspect.configuration(projectId, "alt")).toEqual({ revision: 1, deleted: false, values: { title: "Other" } });
  },

  "update replaces values, bumps the revision by exactly one and a stale revision is a conflict": async ({ store, inspect, expect }) => {
    const { projectId } = await seeded(store);
    const updated = await store.update(projectId, "main", { expectedRevision: 1, values: { title: "New", mode: "list" } });
    expect(updated.revision).toBe(2);
    expect(updated.values).toEqual({ title: "New", mode: "list" });
    const renamed = await store.update(projectId, "main", { expectedRevision: 2, name: "Renamed" });
    expect(renamed).toEqual(expect.objectContaining({ revision: 3, name: "Renamed", values: { title: "New", mode: "list" } }));
    await unchanged(store, projectId, expect, () => store.update(projectId, "main", { expectedRevision: 2, values: { title: "Lost" } }), "conflict");
    await unchanged(store, projectId, expect, () => store.update(projectId, "main", { expectedRevision: 4, values: { title: "Future" } }), "conflict");
    if (inspect) expect(await inspect.configuration(projectId, "main")).toEqual({ revision: 3, deleted: false, values: { title: "New", mode: "list" } });
  },

  "delete and select need the configuration's current revision": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    await store.update(projectId, "main", { expectedRevision: 1, values: { title: "v2" } });
    await store.create(projectId, { configurationId: "alt", name: "Alt", values: { title: "a" } });
    await unchanged(store, projectId, expect, () => store.delete(projectId, "main", { expectedRevision: 1 }), "conflict");
    await unchanged(store, projectId, expect, () => store.select(projectId, "alt", { expectedRevision: 0 }), "conflict");
    const selected = await store.select(projectId, "alt", { expectedRevision: 1 });
    expect(selected.currentConfigurationId).toBe("alt");
    expect((await store.get(projectId, "alt"))?.revision).toBe(1);
  },

  "creating an id that is live is a conflict": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    await unchanged(store, projectId, expect, () => store.create(projectId, { configurationId: "main", name: "Again", values: { title: "x" } }), "conflict");
  },

  "a deleted configuration reads null, looks up as deleted and refuses writes with not_found": async ({ store, inspect, expect }) => {
    const { projectId } = await seeded(store);
    await store.delete(projectId, "main", { expectedRevision: 1 });
    expect(await store.get(projectId, "main")).toBeNull();
    const found = await store.lookup(projectId, "main");
    expect(found).toEqual(expect.objectContaining({ status: "deleted", configurationId: "main", revision: 1 }));
    const overview = await store.read(projectId);
    expect(overview.configurations).toEqual([]);
    expect(overview.currentConfigurationId).toBeNull();
    await unchanged(store, projectId, expect, () => store.update(projectId, "main", { expectedRevision: 1, values: { title: "x" } }), "not_found");
    await unchanged(store, projectId, expect, () => store.delete(projectId, "main", { expectedRevision: 1 }), "not_found");
    await unchanged(store, projectId, expect, () => store.select(projectId, "main", { expectedRevision: 1 }), "not_found");
    await unchanged(store, projectId, expect, () => store.update(projectId, "never", { expectedRevision: 1, name: "x" }), "not_found");
    if (inspect) expect((await inspect.configuration(projectId, "main"))?.deleted).toBe(true);
  },

  "re-creating a deleted id continues its revisions, so old revisions stay stale": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    await store.update(projectId, "main", { expectedRevision: 1, values: { title: "b" } });
    await store.delete(projectId, "main", { expectedRevision: 2 });
    const again = await store.create(projectId, { configurationId: "main", name: "Main again", values: { title: "c" } });
    expect(again.revision).toBe(3);
    expect(await errorCode(() => store.update(projectId, "main", { expectedRevision: 1, values: { title: "old" } }))).toBe("conflict");
    expect((await store.read(projectId)).currentConfigurationId).toBe("main");
  },

  "deleting the current configuration leaves none current": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    await store.create(projectId, { configurationId: "alt", name: "Alt", values: { title: "a" } });
    await store.delete(projectId, "main", { expectedRevision: 1 });
    const overview = await store.read(projectId);
    expect(overview.currentConfigurationId).toBeNull();
    expect(overview.configurations.map((c) => c.configurationId)).toEqual(["alt"]);
  },

  "the project revision grows by one on every write and select leaves the configuration revision": async ({ store, expect }) => {
    const projectId = uniqueId("project");
    const revisions: number[] = [];
    const note = async () => revisions.push((await store.read(projectId)).revision);
    await store.setFields(projectId, [{ key: "title", type: "string" }], { expectedRevision: 0 });
    await note();
    await store.create(projectId, { configurationId: "a", name: "A", values: {} });
    await note();
    await store.create(projectId, { configurationId: "b", name: "B", values: {} });
    await note();
    await store.select(projectId, "b", { expectedRevision: 1 });
    await note();
    await store.update(projectId, "a", { expectedRevision: 1, values: { title: "t" } });
    await note();
    await store.delete(projectId, "a", { expectedRevision: 2 });
    await note();
    expect(revisions).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await store.get(projectId, "b"))?.revision).toBe(1);
    await unchanged(store, projectId, expect, () => store.setFields(projectId, [], { expectedRevision: 5 }), "conflict");
  },

  "values are checked against the typed fields": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ title: "t", unknown: 1 }, "values/unknown"],
      [{ title: 5 }, "values/title"],
      [{}, "values/title"],
      [{ title: "t", columns: 2.5 }, "values/columns"],
      [{ title: "t", mode: "grid" }, "values/mode"],
      [{ title: "t", STEAMHARNESS_AGENT_MODELS: [{ ...model("a"), apiKey: "sk-secret" }] }, "values/STEAMHARNESS_AGENT_MODELS/0/apiKey"],
      [{ title: "t", STEAMHARNESS_AGENT_MODELS: [model("a"), model("a")] }, "values/STEAMHARNESS_AGENT_MODELS/1/id"],
      [{ title: "t", STEAMHARNESS_AGENT_MODELS: [{ ...model("a"), apiKind: "grpc" }] }, "values/STEAMHARNESS_AGENT_MODELS/0/apiKind"],
    ];
    for (const [values, field] of bad) {
      const before = await store.read(projectId);
      let caught: unknown;
      await store.update(projectId, "main", { expectedRevision: 1, values: values as Record<string, JsonValue> }).catch((error: unknown) => (caught = error));
      expect((caught as { code?: string })?.code).toBe("input_validation");
      expect((caught as { field?: string })?.field).toBe(field);
      expect(await store.read(projectId)).toEqual(before);
    }
    const ok = await store.update(projectId, "main", { expectedRevision: 1, values: { title: "t", STEAMHARNESS_AGENT_MODELS: [model("a"), model("b", false)] } });
    expect(ok.revision).toBe(2);
  },

  "setFields refuses fields the existing configurations would break and malformed definitions": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    const revision = (await store.read(projectId)).revision;
    await unchanged(store, projectId, expect, () => store.setFields(projectId, [{ key: "other", type: "string" }], { expectedRevision: revision }), "input_validation");
    await unchanged(store, projectId, expect, () => store.setFields(projectId, [{ key: "title", type: "colour" } as never], { expectedRevision: revision }), "input_validation");
    await unchanged(store, projectId, expect, () => store.setFields(projectId, [{ key: "title", type: "string" }, { key: "title", type: "string" }], { expectedRevision: revision }), "input_validation");
    await unchanged(store, projectId, expect, () => store.setFields(projectId, [{ key: "STEAMHARNESS_AGENT_MODELS", type: "json" }], { expectedRevision: revision }), "input_validation");
    const next = await store.setFields(projectId, [{ key: "title", type: "string" }, { key: "STEAMHARNESS_AGENT_MODELS", type: "agent-models", allowThirdParty: false }], { expectedRevision: revision });
    expect(next.revision).toBe(revision + 1);
    expect(next.fields.map((f) => f.key)).toEqual(["title", "STEAMHARNESS_AGENT_MODELS"]);
  },

  "ids, names and revisions are validated": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    for (const configurationId of ["", "x".repeat(201), "bad\nid"]) {
      await unchanged(store, projectId, expect, () => store.create(projectId, { configurationId, name: "N", values: { title: "t" } }), "input_validation");
    }
    await unchanged(store, projectId, expect, () => store.create(projectId, { configurationId: "ok", name: " ", values: { title: "t" } }), "input_validation");
    await unchanged(store, projectId, expect, () => store.update(projectId, "main", { expectedRevision: -1, name: "x" }), "input_validation");
    await unchanged(store, projectId, expect, () => store.update(projectId, "main", { expectedRevision: 1.5, name: "x" }), "input_validation");
    expect(await errorCode(() => store.read(""))).toBe("input_validation");
    const astral = await store.create(projectId, { configurationId: "配置 😀", name: "看板 😀", values: { title: "t" } });
    expect((await store.get(projectId, "配置 😀"))?.name).toBe(astral.name);
  },

  "export and import round-trip into another project": async ({ store, expect }) => {
    const { projectId } = await seeded(store, { title: "Roadmap", STEAMHARNESS_AGENT_MODELS: [model("fast")] });
    await store.create(projectId, { configurationId: "alt", name: "Alt", values: { title: "Alt", mode: "board" } });
    await store.select(projectId, "alt", { expectedRevision: 1 });
    const document = await store.exportProject(projectId);
    expect(document).toEqual(expect.objectContaining({ format: "steamharness.project-configuration", version: 1, currentConfigurationId: "alt" }));
    const copy = uniqueId("project");
    const imported = await store.importProject(copy, JSON.parse(JSON.stringify(document)), { expectedRevision: 0 });
    const original = await store.read(projectId);
    expect(imported.fields).toEqual(original.fields);
    expect(imported.currentConfigurationId).toBe("alt");
    expect(imported.configurations.map((c) => [c.configurationId, c.name, c.values, c.revision])).toEqual(
      original.configurations.map((c) => [c.configurationId, c.name, c.values, 1]),
    );
  },

  "import replaces the whole project, needs the project revision and keeps revisions growing": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    await store.create(projectId, { configurationId: "gone", name: "Gone", values: { title: "g" } });
    const document = {
      format: "steamharness.project-configuration",
      version: 1,
      fields: [{ key: "title", type: "string" }],
      currentConfigurationId: "main",
      configurations: [{ configurationId: "main", name: "Main", values: { title: "imported" } }],
    };
    const revision = (await store.read(projectId)).revision;
    await unchanged(store, projectId, expect, () => store.importProject(projectId, document, { expectedRevision: revision - 1 }), "conflict");
    const after = await store.importProject(projectId, document, { expectedRevision: revision });
    expect(after.revision).toBe(revision + 1);
    expect(after.configurations.map((c) => [c.configurationId, c.revision, c.values])).toEqual([["main", 2, { title: "imported" }]]);
    expect((await store.lookup(projectId, "gone")).status).toBe("deleted");
  },

  "malformed import documents are refused with the path and change nothing": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    const revision = (await store.read(projectId)).revision;
    const base = { format: "steamharness.project-configuration", version: 1, fields: [{ key: "title", type: "string" }], currentConfigurationId: null, configurations: [] as unknown[] };
    const bad: Array<[unknown, string]> = [
      [{ ...base, format: "other" }, "format"],
      [{ ...base, version: 99 }, "version"],
      [{ ...base, configurations: [{ configurationId: "a", name: "A", values: { title: 1 } }] }, "configurations/0/values/title"],
      [{ ...base, configurations: [{ configurationId: "a", name: "A", values: {} }, { configurationId: "a", name: "B", values: {} }] }, "configurations/1/configurationId"],
      [{ ...base, currentConfigurationId: "missing" }, "currentConfigurationId"],
      [{ ...base, fields: [{ key: "1bad", type: "string" }] }, "fields/0/key"],
      ["not a document", ""],
    ];
    for (const [document, field] of bad) {
      const before = await store.read(projectId);
      let caught: { code?: string; field?: string } | undefined;
      await store.importProject(projectId, document, { expectedRevision: revision }).catch((error: unknown) => (caught = error as never));
      expect([caught?.code, caught?.field ?? ""]).toEqual(["input_validation", field]);
      expect(await store.read(projectId)).toEqual(before);
    }
  },

  "returned objects are copies and projects are isolated": async ({ store, expect }) => {
    const { projectId, created } = await seeded(store);
    (created.values as Record<string, JsonValue>).title = "mutated";
    const overview = await store.read(projectId);
    overview.configurations[0]!.values.title = "mutated too";
    overview.fields.pop();
    const fresh = await store.read(projectId);
    expect(fresh.configurations[0]!.values.title).toBe("Roadmap");
    expect(fresh.fields).toHaveLength(3);
    const other = uniqueId("project");
    expect((await store.read(other)).configurations).toEqual([]);
    await store.create(other, { configurationId: "main", name: "Other", values: {} });
    expect((await store.get(projectId, "main"))?.name).toBe("Main");
  },

  "of concurrent writers holding the same revision exactly one wins": async ({ store, expect }) => {
    const { projectId } = await seeded(store);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.update(projectId, "main", { expectedRevision: 1, values: { title: `writer ${i}` } })),
    );
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const codes = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as { code?: string }).code] : []));
    expect(won).toHaveLength(1);
    expect(codes).toEqual(Array(7).fill("conflict"));
    const stored = await store.get(projectId, "main");
    expect(stored?.revision).toBe(2);
    expect(stored?.values).toEqual((won[0] as PromiseFulfilledResult<{ values: JsonValue }>).value.values);
  },
};

/** Case names of the project configuration store suite (the names `skip` accepts). */
export type ProjectConfigurationStoreContractCase = keyof typeof cases;

/**
 * The contract every `ProjectConfigurationStore` adapter passes (CFG-1, PORT-1): typed fields,
 * named configurations, the current configuration, revisions with `conflict` on a stale one,
 * tombstones with `not_found`, JSON import/export, copies and isolation.
 *
 * @example
 * runProjectConfigurationStoreContract({ describe, it, expect }, () => ({ store: createMemoryProjectConfigurationStore() }));
 */
export function runProjectConfigurationStoreContract(
  api: ContractTestApi,
  factory: ContractFactory<ProjectConfigurationStore, ProjectConfigurationStoreInspect>,
  options: ContractOptions<ProjectConfigurationStoreContractCase> = {},
): void {
  defineContract(api, "ProjectConfigurationStore", factory, cases, options);
}
