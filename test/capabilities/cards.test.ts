import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { acceptToolResultCard, validateResourceCard, RESOURCE_CARD_KINDS } from "../../src/domain/capabilities/resource-card.js";
import { connectInProcess, fixture, mcpCall, nativeError } from "./support.js";

const details = (r: { details?: Record<string, unknown> }) => r.details as any;

describe("CAP-9 resource cards on knowledge and KV results", () => {
  it("CAP-9 knowledge get/upsert and KV get/set carry cards with the right targets", async () => {
    const fx = await fixture();
    const knowledge = fx.tool(IDS.knowledge);
    const kv = fx.tool(IDS.kv);
    expect(details(await knowledge.execute("t", { action: "upsert", documentId: "plan", title: "Plan", markdown: "# Plan" })).resourceCard).toEqual({
      kind: "knowledge",
      operation: "write",
      title: "Plan",
      target: { source: "local", projectId: "project-1", documentId: "plan" },
    });
    expect(details(await knowledge.execute("t", { action: "get", documentId: "plan" })).resourceCard).toMatchObject({ kind: "knowledge", operation: "read" });
    expect(details(await kv.execute("t", { action: "set", key: "k", value: 1 })).resourceCard).toEqual({
      kind: "kv",
      operation: "write",
      title: "k",
      target: { source: "local", projectId: "project-1", scope: "project", key: "k" },
    });
    await kv.execute("t", { action: "set", scope: "conversation", key: "c", value: 2 });
    expect(details(await kv.execute("t", { action: "get", scope: "conversation", key: "c" })).resourceCard).toEqual({
      kind: "kv",
      operation: "read",
      title: "c",
      target: { source: "local", projectId: "project-1", scope: "conversation", key: "c", conversationId: "conversation-1" },
    });
    // Every card we produce passes our own validation.
    for (const card of [details(await kv.execute("t", { action: "get", key: "k" })).resourceCard]) expect(() => validateResourceCard(card)).not.toThrow();
  });

  it("CAP-9 failed results carry the error and no card (native and MCP)", async () => {
    const fx = await fixture();
    expect(await nativeError(fx.tool(IDS.kv).execute("t", { action: "get", key: "missing" }))).toMatchObject({ code: "not_found" });
    const client = await connectInProcess(IDS.knowledge, fx.context);
    const failed = await mcpCall(client, "knowledge_documents", { action: "get", documentId: "missing" });
    expect(failed.ok).toBe(false);
    expect(failed.structured).toEqual({ error: { code: "not_found", message: expect.any(String), field: "documentId" } });
    expect(failed.structured.resourceCard).toBeUndefined();
    const ok = await mcpCall(client, "knowledge_documents", { action: "upsert", documentId: "a", markdown: "x" });
    expect(ok.structured.resourceCard.target).toEqual({ source: "local", projectId: "project-1", documentId: "a" });
    await client.close();
  });

  it("CAP-9 custom tool cards pass through unchanged; invalid ones are dropped with a warning, the result stays", () => {
    const valid = { answer: 42, resourceCard: { kind: "project", operation: "open", title: "Board", target: { source: "server", projectId: "real-project" } } };
    const accepted = acceptToolResultCard(valid, { agentProjectId: "assistant" });
    expect(accepted.details).toBe(valid);
    expect(accepted.warning).toBeUndefined();
    const invalid = { answer: 42, resourceCard: { kind: "project", operation: "open", target: { source: "server", projectId: "assistant" } } };
    const dropped = acceptToolResultCard(invalid, { agentProjectId: "assistant" });
    expect(dropped.details).toEqual({ answer: 42, resourceCardWarning: expect.objectContaining({ code: "input_validation", field: "target.projectId" }) });
    expect(dropped.warning?.message).toContain("resource card dropped");
    expect(acceptToolResultCard({ resourceCard: { kind: "kv", operation: "read", title: "x".repeat(201), target: { source: "local", projectId: "p", scope: "project", key: "k" } } }).warning?.field).toBe("title");
    expect(acceptToolResultCard({ resourceCard: { kind: "nope", operation: "read", target: {} } }).warning?.field).toBe("kind");
    expect(acceptToolResultCard({ resourceCard: { kind: "kv", operation: "delete", target: {} } }).warning?.field).toBe("operation");
    expect(acceptToolResultCard(undefined).details).toBeUndefined();
  });
});

// Every kind × target field combination: which target fields a kind accepts and requires.
const TARGET_VALUES: Record<string, string> = {
  source: "server",
  projectId: "other-project",
  documentId: "doc",
  scope: "project",
  key: "k",
  conversationId: "conv",
  url: "https://example.com/",
  filePath: "docs/a.md",
  configurationId: "cfg",
};
const EXPECTED: Record<string, { required: string[]; optional: string[] }> = {
  knowledge: { required: ["source", "documentId"], optional: ["projectId"] },
  kv: { required: ["source", "scope", "key"], optional: ["projectId"] },
  project: { required: ["source"], optional: ["projectId", "configurationId"] },
  kanban: { required: ["source"], optional: ["projectId", "configurationId"] },
  browser: { required: ["url"], optional: [] },
  file: { required: ["source", "filePath"], optional: ["projectId"] },
};

describe("CAP-10 workflow-ui_present_card", () => {
  it("CAP-10 every kind × target field combination: required, optional and foreign fields", async () => {
    const fx = await fixture();
    const card = fx.tool(IDS.presentCard);
    expect(Object.keys(EXPECTED).sort()).toEqual([...RESOURCE_CARD_KINDS].sort());
    for (const kind of RESOURCE_CARD_KINDS) {
      const { required, optional } = EXPECTED[kind];
      const base = Object.fromEntries([...required, ...optional].map((f) => [f, TARGET_VALUES[f]]));
      await expect(card.execute("t", { action: "upsert", cardId: `c-${kind}`, kind, target: base })).resolves.toBeDefined();
      for (const field of required) {
        const { [field]: _omit, ...missing } = base;
        const error = await nativeError(card.execute("t", { action: "upsert", cardId: "c", kind, target: missing }));
        expect([kind, field, error.code, error.field]).toEqual([kind, field, "input_validation", field === "source" && kind !== "browser" ? "target.source" : `target.${field}`]);
      }
      for (const field of Object.keys(TARGET_VALUES)) {
        if (required.includes(field) || optional.includes(field) || (kind === "kv" && field === "conversationId")) continue;
        const error = await nativeError(card.execute("t", { action: "upsert", cardId: "c", kind, target: { ...base, [field]: TARGET_VALUES[field] } }));
        expect([kind, field, error.field]).toEqual([kind, field, `target.${field}`]);
      }
    }
  });

  it("CAP-10 targets: projectId required unless source is current; never the agent's own project for linked projects; kv conversation rules", async () => {
    const fx = await fixture();
    const card = fx.tool(IDS.presentCard);
    await expect(card.execute("t", { action: "upsert", cardId: "b", kind: "kanban", target: { source: "current", configurationId: "configuration-id" } })).resolves.toBeDefined();
    expect(await nativeError(card.execute("t", { action: "upsert", cardId: "b", kind: "kanban", target: { source: "server" } }))).toMatchObject({ field: "target.projectId" });
    for (const kind of ["project", "kanban"]) {
      expect(await nativeError(card.execute("t", { action: "upsert", cardId: "b", kind, target: { source: "local", projectId: "project-1" } }))).toMatchObject({ field: "target.projectId" });
    }
    expect(await nativeError(card.execute("t", { action: "upsert", cardId: "k", kind: "kv", target: { source: "local", projectId: "p", scope: "conversation", key: "a" } }))).toMatchObject({ field: "target.conversationId" });
    expect(await nativeError(card.execute("t", { action: "upsert", cardId: "k", kind: "kv", target: { source: "local", projectId: "p", scope: "project", key: "a", conversationId: "c" } }))).toMatchObject({ field: "target.conversationId" });
    await expect(card.execute("t", { action: "upsert", cardId: "k", kind: "kv", target: { source: "local", projectId: "p", scope: "conversation", key: "a", conversationId: "c" } })).resolves.toBeDefined();
    expect(await nativeError(card.execute("t", { action: "upsert", cardId: "k", kind: "kv", target: { source: "elsewhere", projectId: "p", scope: "project", key: "a" } }))).toMatchObject({ field: "target.source" });
  });

  it("CAP-10 browser cards take only http(s) URLs", async () => {
    const card = (await fixture()).tool(IDS.presentCard);
    for (const url of ["https://example.com/a?b=c", "http://localhost:3000/", "https://例え.jp/"]) {
      await expect(card.execute("t", { action: "upsert", cardId: "w", kind: "browser", target: { url } })).resolves.toBeDefined();
    }
    for (const url of ["file:///etc/passwd", "javascript:alert(1)", "ftp://example.com/", "data:text/html,hi", "example.com", "//example.com", "https://user:pw@example.com/", "http://"]) {
      expect([url, (await nativeError(card.execute("t", { action: "upsert", cardId: "w", kind: "browser", target: { url } }))).field]).toEqual([url, "target.url"]);
    }
  });

  it("CAP-10 file cards take only project-relative paths that stay inside the project", async () => {
    const card = (await fixture()).tool(IDS.presentCard);
    const target = (filePath: string) => ({ source: "local", projectId: "p", filePath });
    for (const ok of ["README.md", "docs/plan.md", "./docs/plan.md", "a/../b.md", "dir\\file.txt", "文档/计划.md", "~notes.md"]) {
      await expect(card.execute("t", { action: "upsert", cardId: "f", kind: "file", target: target(ok) })).resolves.toBeDefined();
    }
    for (const bad of ["/etc/passwd", "\\\\server\\share", "C:\\Windows\\x", "c:/x", "../secret", "docs/../../x", "a/b/../../../c", "..", ".", "~/x", "~", "file:///x", "a\u0000b"]) {
      expect([bad, (await nativeError(card.execute("t", { action: "upsert", cardId: "f", kind: "file", target: target(bad) }))).field]).toEqual([bad, "target.filePath"]);
    }
  });

  it("CAP-10 preview and pinned defaults (pinned only when set), kanban preview values, remove takes only cardId", async () => {
    const fx = await fixture();
    const card = fx.tool(IDS.presentCard);
    const command = async (args: Record<string, unknown>) => details(await card.execute("t", args)).cardCommand;
    expect(await command({ action: "upsert", cardId: "roadmap-board", kind: "kanban", target: { source: "current", configurationId: "configuration-id" }, kanban: { mode: "preview", values: { title: "Roadmap" } } })).toEqual({
      action: "upsert",
      cardId: "roadmap-board",
      kind: "kanban",
      target: { source: "current", configurationId: "configuration-id" },
      preview: true,
      kanban: { mode: "preview", values: { title: "Roadmap" } },
    });
    const project = await command({ action: "upsert", cardId: "p", kind: "project", target: { source: "server", projectId: "x" } });
    expect(project).toMatchObject({ preview: true });
    expect("pinned" in project).toBe(false);
    expect(await command({ action: "upsert", cardId: "w", kind: "browser", target: { url: "https://x.test/" }, preview: false, pinned: false })).toMatchObject({ pinned: false, preview: false });
    const doc = await command({ action: "upsert", cardId: "d", kind: "knowledge", target: { source: "local", projectId: "p", documentId: "a" } });
    expect("pinned" in doc).toBe(false);
    expect(doc.preview).toBeUndefined();
    expect(await command({ action: "upsert", cardId: "d", kind: "knowledge", pinned: true, target: { source: "local", projectId: "p", documentId: "a" } })).toMatchObject({ pinned: true });
    expect(await nativeError(card.execute("t", { action: "upsert", cardId: "d", kind: "knowledge", preview: true, target: { source: "local", projectId: "p", documentId: "a" } }))).toMatchObject({ field: "preview" });
    expect(await nativeError(card.execute("t", { action: "upsert", cardId: "d", kind: "project", kanban: { mode: "preview", values: {} }, target: { source: "current" } }))).toMatchObject({ field: "kanban" });
    expect(await nativeError(card.execute("t", { action: "upsert", cardId: "d", kind: "kanban", kanban: { mode: "save", values: {} }, target: { source: "current" } }))).toMatchObject({ field: "kanban.mode" });
    expect(await command({ action: "remove", cardId: "roadmap-board" })).toEqual({ action: "remove", cardId: "roadmap-board" });
    for (const extra of [{ kind: "kanban" }, { target: { source: "current" } }, { pinned: true }, { preview: false }, { title: "x" }]) {
      const error = await nativeError(card.execute("t", { action: "remove", cardId: "roadmap-board", ...extra }));
      expect(error).toMatchObject({ code: "input_validation", field: Object.keys(extra)[0] });
    }
    expect(await nativeError(card.execute("t", { action: "remove" }))).toMatchObject({ field: "cardId" });
  });

  it("CAP-10 the command travels in the tool result, over MCP too", async () => {
    const fx = await fixture();
    const client = await connectInProcess(IDS.presentCard, fx.context);
    const result = await mcpCall(client, "present_card", { action: "upsert", cardId: "w", kind: "browser", target: { url: "https://x.test/" } });
    expect(result.structured.cardCommand).toEqual({ action: "upsert", cardId: "w", kind: "browser", target: { url: "https://x.test/" }, preview: true });
    expect(JSON.parse(result.text)).toEqual(result.structured.cardCommand);
    await client.close();
  });
});
