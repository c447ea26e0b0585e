// TEN-3 on the gateway: with API keys, each key's tenant runs with its own namespace of the
// gateway's stores. A tool of the agent writes a note to the run's KV for one tenant; another
// tenant's run reads the same key and finds nothing, while the first tenant finds its note again
// in a new conversation. A real gateway on a loopback port, the official `openai` client.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import OpenAI from "openai";
import { createMemoryApiKeyStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { textToolResult, type AgentTool } from "../../src/domain/agent-tool.js";
import type { NodeContext } from "../../src/domain/node-context.js";
import { tenantStorage } from "../../src/app/tenants/tenant-storage.js";
import type { JsonObject } from "../../src/domain/json.js";
import type { OfflineStep } from "../../src/testing/offline-model.js";
import { gatewayWith, MODEL, textOf } from "./helpers.js";

/** `note` keeps its `text` in the run's KV (or reads it back when none is given). */
const noteTool = (context: NodeContext): AgentTool => ({
  name: "note",
  label: "Note",
  description: "Keeps or reads a note",
  parameters: Type.Object({ text: Type.Optional(Type.String()) }),
  async execute(_id, params) {
    const ns = { projectId: context.projectId };
    const { text } = params as { text?: string };
    if (text !== undefined) await context.storage.kv.set(ns, "note", text);
    return textToolResult({ note: (await context.storage.kv.get(ns, "note"))?.value ?? null });
  },
});

describe("TEN-3 gateway tenants keep their data apart", () => {
  it("TEN-3: a key's tenant reads and writes its own namespace of the gateway's stores; another tenant's run finds nothing by the same key", async () => {
    const apiKeys = createMemoryApiKeyStore();
    const [acme, other] = [await apiKeys.add({ id: "acme" }, Date.now()), await apiKeys.add({ id: "other" }, Date.now())];
    const storage = new MemoryStorage();
    const projectId = randomUUID();
    const { gateway } = await gatewayWith(
      (request): OfflineStep => {
        const last = request.messages.at(-1)!;
        if (last.role === "toolResult") return { text: `tool: ${textOf(last.content)}` };
        const said = textOf(last.content).split("</host-input>").pop()!.trim();
        return { toolCalls: [{ name: "note", arguments: said === "read" ? ({} as JsonObject) : { text: said } }] };
      },
      { apiKeys, storage, projectId, toolCatalog: [{ id: "note", autoApprove: true }], agentOptions: { createTools: (context) => [noteTool(context)] } },
    );
    const client = (secret: string) => new OpenAI({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 });
    const [asAcme, asOther] = [client(acme.secret), client(other.secret)];

    expect((await asAcme.responses.create({ model: MODEL, input: "acme-secret" })).output_text).toBe('tool: {"note":"acme-secret"}');
    expect((await asOther.responses.create({ model: MODEL, input: "read" })).output_text).toBe('tool: {"note":null}');
    expect((await asOther.responses.create({ model: MODEL, input: "other-note" })).output_text).toBe('tool: {"note":"other-note"}');
    expect((await asAcme.responses.create({ model: MODEL, input: "read" })).output_text).toBe('tool: {"note":"acme-secret"}');

    // The note is in the tenant's namespace of the shared store, not in the store's own.
    expect(await storage.kv.get({ projectId }, "note")).toBeNull();
    expect((await tenantStorage(storage, "key:acme").kv.get({ projectId }, "note"))?.value).toBe("acme-secret");
    expect((await tenantStorage(storage, "key:other").kv.get({ projectId }, "note"))?.value).toBe("other-note");
  });
});
