import { request as httpRequest } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { startHostBridgeServer, type HostBridgeServer } from "../../src/adapters/driving/host-bridge-server/host-bridge-server.js";
import { resolveConfigurationCard } from "../../src/adapters/driving/host-bridge-server/configuration-card.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import {
  createProjectCapabilityServer,
  createProjectCapabilityTools,
  isProjectCapabilityAvailable,
  runProjectCapabilityAction,
} from "../../src/app/capabilities/project-capabilities.js";
import type { ProjectConfigurationStore } from "../../src/ports/project-configuration-store.js";
import { createNodeContext } from "../../src/compose/node-context.js";

const HOST = "workflow-host_project_configurations";
const CARD = "workflow-ui_present_card";
const PROJECT = "11111111-1111-4111-8111-111111111111";

let dataDir: string;
let store: ProjectConfigurationStore;
let bridge: HostBridgeServer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "steamharness-bridge-"));
  store = createSqliteProjectConfigurationStore({ dataDir });
  await store.setFields(PROJECT, [{ key: "title", type: "string", required: true }, { key: "columns", type: "integer" }], { expectedRevision: 0 });
  await store.create(PROJECT, { configurationId: "roadmap", name: "Roadmap", values: { title: "Roadmap" } });
  bridge = await startHostBridgeServer({ store, defaultProjectId: PROJECT });
});

afterAll(async () => {
  await bridge.close();
  await store.close?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const context = () => createNodeContext({ projectId: "assistant-project", conversationId: "c1", storage: new MemoryStorage() });
const run = (args: unknown) => runProjectCapabilityAction(HOST, context(), args, { env: bridge.env });
const details = (result: { details?: unknown }) => (result.details as { result: any }).result;
async function failure(promise: Promise<unknown>): Promise<{ code?: string; field?: string; message?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string };
  }
  throw new Error("expected a failure");
}

function raw(path: string, options: { headers?: Record<string, string>; method?: string; body?: string; host?: string; port?: number } = {}) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest(
      { host: options.host ?? "127.0.0.1", port: options.port ?? bridge.port, path, method: options.method ?? "POST", headers: options.headers ?? {} },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
const auth = () => ({ authorization: `Bearer ${bridge.token}`, "content-type": "application/json" });

describe("CFG-3 host-bridge server with the CAP-8 capability end to end", () => {
  it("CFG-3 the capability is available against the bridge and get_configurations lists revisions", async () => {
    expect(isProjectCapabilityAvailable(HOST, { env: bridge.env })).toBe(true);
    expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const listed = details(await run({ action: "get_configurations", storageLocation: "local", projectId: PROJECT }));
    expect(listed).toEqual(
      expect.objectContaining({
        storageLocation: "local",
        projectId: PROJECT,
        currentConfigurationId: "roadmap",
        configurations: [expect.objectContaining({ configurationId: "roadmap", name: "Roadmap", revision: 1, current: true, values: { title: "Roadmap" } })],
      }),
    );
    const byDefault = details(await run({ action: "get_configurations" }));
    expect(byDefault.projectId).toBe(PROJECT);
  });

  it("CFG-3 manage_configurations writes with the revision read, and a stale revision is a conflict that changes nothing", async () => {
    const created = details(
      await run({ action: "manage_configurations", operation: "create", storageLocation: "local", projectId: PROJECT, configurationId: "sprint", revision: 0, name: "Sprint", values: { title: "Sprint 1" } }),
    );
    expect(created).toEqual(expect.objectContaining({ configurationId: "sprint", revision: 1, current: false }));
    const updated = details(
      await run({ action: "manage_configurations", operation: "update", storageLocation: "local", projectId: PROJECT, configurationId: "sprint", revision: 1, values: { title: "Sprint 2", columns: 4 } }),
    );
    expect(updated).toEqual(expect.objectContaining({ revision: 2, values: { title: "Sprint 2", columns: 4 } }));
    const stale = await failure(
      run({ action: "manage_configurations", operation: "update", storageLocation: "local", projectId: PROJECT, configurationId: "sprint", revision: 1, values: { title: "Lost update" } }),
    );
    expect(stale.code).toBe("conflict");
    expect((await store.get(PROJECT, "sprint"))?.values).toEqual({ title: "Sprint 2", columns: 4 });
    const badValue = await failure(
      run({ action: "manage_configurations", operation: "update", storageLocation: "local", projectId: PROJECT, configurationId: "sprint", revision: 2, values: { columns: "four" } }),
    );
    expect([badValue.code, badValue.field]).toEqual(["input_validation", "values/columns"]);
    const selected = details(await run({ action: "manage_configurations", operation: "select", storageLocation: "local", projectId: PROJECT, configurationId: "sprint", revision: 2 }));
    expect(selected).toEqual(expect.objectContaining({ current: true, revision: 2 }));
    const server = await failure(run({ action: "get_configurations", storageLocation: "server", projectId: PROJECT }));
    expect(server.code).toBe("unavailable");
  });

  it("CFG-3 the native tool and the MCP rendering reach the same bridge; conflicts surface as errors", async () => {
    const tools = await createProjectCapabilityTools({ context: context(), env: bridge.env });
    const tool = tools.find((t) => t.name === HOST)!;
    const current = await store.get(PROJECT, "roadmap");
    const result = await tool.execute("call-1", { action: "manage_configurations", operation: "update", storageLocation: "local", projectId: PROJECT, configurationId: "roadmap", revision: current!.revision, name: "Roadmap 2027" });
    expect(details(result)).toEqual(expect.objectContaining({ name: "Roadmap 2027", revision: current!.revision + 1 }));

    const mcpServer = await createProjectCapabilityServer(HOST, { context: context(), env: bridge.env });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await mcpServer.connect(serverTransport);
    const client = new Client({ name: "bridge-test", version: "0.0.0" });
    await client.connect(clientTransport);
    const answer = await client.callTool({
      name: "project_configurations",
      arguments: { action: "manage_configurations", operation: "update", storageLocation: "local", projectId: PROJECT, configurationId: "roadmap", revision: current!.revision, name: "Stale" },
    });
    expect(answer.isError).toBe(true);
    expect((answer.structuredContent as any).error.code).toBe("conflict");
    await client.close();
  });

  it("CFG-3 a deleted configuration is reported unavailable on its kanban card and by get_configurations", async () => {
    await store.create(PROJECT, { configurationId: "board", name: "Board", values: { title: "Board" } });
    const card = details(
      await runProjectCapabilityAction(CARD, context(), { action: "upsert", cardId: "board-card", kind: "kanban", target: { source: "local", projectId: PROJECT, configurationId: "board" } }, { env: bridge.env }),
    );
    const cardContext = { stores: { local: store }, currentProjectId: PROJECT };
    expect(await resolveConfigurationCard(card, cardContext)).toEqual(expect.objectContaining({ available: true, configuration: expect.objectContaining({ configurationId: "board" }) }));
    const deleted = details(await run({ action: "manage_configurations", operation: "delete", storageLocation: "local", projectId: PROJECT, configurationId: "board", revision: 1 }));
    expect(deleted).toEqual(expect.objectContaining({ configurationId: "board", deleted: true }));
    expect(await resolveConfigurationCard(card, cardContext)).toEqual({
      available: false,
      configurationId: "board",
      reason: "deleted",
      message: expect.stringContaining("unavailable"),
    });
    const gone = await failure(run({ action: "get_configurations", storageLocation: "local", projectId: PROJECT, configurationId: "board" }));
    expect([gone.code, gone.message]).toEqual(["not_found", expect.stringContaining("unavailable")]);
    const again = await failure(run({ action: "manage_configurations", operation: "update", storageLocation: "local", projectId: PROJECT, configurationId: "board", revision: 1, name: "x" }));
    expect(again.code).toBe("not_found");
  });
});

describe("CFG-3 host-bridge server security", () => {
  it("CFG-3 refuses requests without the bearer token or with a wrong one", async () => {
    const body = JSON.stringify({});
    expect((await raw("/v1/configurations/get", { headers: { "content-type": "application/json" }, body })).status).toBe(401);
    const wrong = await raw("/v1/configurations/get", { headers: { "content-type": "application/json", authorization: `Bearer ${bridge.token}x` }, body });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, "unavailable"]);
    expect((await raw("/v1/configurations/get", { headers: { "content-type": "application/json", authorization: bridge.token }, body })).status).toBe(401);
    expect((await raw("/v1/configurations/get", { headers: auth(), body })).status).toBe(200);
    const refused = await failure(runProjectCapabilityAction(HOST, context(), { action: "get_configurations" }, { env: { ...bridge.env, STEAMHARNESS_DEVELOPER_ASSISTANT_HOST_BRIDGE_TOKEN: "not-the-token-at-all" } }));
    expect(refused.code).toBe("unavailable");
  });

  it("CFG-3 refuses a foreign Host header (DNS rebinding) and browser origins", async () => {
    expect((await raw("/v1/configurations/get", { headers: { ...auth(), host: `localhost:${bridge.port}` }, body: "{}" })).status).toBe(403);
    expect((await raw("/v1/configurations/get", { headers: { ...auth(), host: "evil.example" }, body: "{}" })).status).toBe(403);
    expect((await raw("/v1/configurations/get", { headers: { ...auth(), origin: "http://evil.example" }, body: "{}" })).status).toBe(403);
  });

  it("CFG-3 listens only on 127.0.0.1: other local addresses refuse the connection", async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === "IPv4")
      .map((a) => a!.address);
    for (const host of ["::1", ...others]) {
      await expect(raw("/v1/configurations/get", { host, headers: auth(), body: "{}" })).rejects.toMatchObject({ code: expect.stringMatching(/ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH/) });
    }
  });

  it("CFG-3 serves only POSTed JSON objects to the protocol paths", async () => {
    expect((await raw("/v1/other", { headers: auth(), body: "{}" })).status).toBe(404);
    expect((await raw("/v1/configurations/get", { method: "GET", headers: { authorization: `Bearer ${bridge.token}` } })).status).toBe(405);
    expect((await raw("/v1/configurations/get", { headers: { authorization: `Bearer ${bridge.token}`, "content-type": "text/plain" }, body: "{}" })).status).toBe(415);
    expect((await raw("/v1/configurations/get", { headers: auth(), body: "{not json" })).status).toBe(400);
    expect((await raw("/v1/configurations/get", { headers: auth(), body: "[]" })).status).toBe(400);
    const extra = await raw("/v1/configurations/get", { headers: auth(), body: JSON.stringify({ sneaky: 1 }) });
    expect([extra.status, extra.body.error.code]).toEqual([400, "input_validation"]);
    expect((await raw("/v1/configurations/manage", { headers: auth(), body: "x".repeat(1024 * 1024 + 10) })).status).toBe(413);
  });

  it("CFG-3 refuses weak tokens and a missing store", async () => {
    await expect(startHostBridgeServer({ store, token: "short" })).rejects.toMatchObject({ code: "input_validation" });
    await expect(startHostBridgeServer({})).rejects.toMatchObject({ code: "input_validation" });
  });
});
