// Issue 43's cross-tenant matrix, the gateway and the configuration server (TEN-1..TEN-4, BUD-4,
// CFG-4): tenant A creates, tenant B (another tenant, real credentials) tries; every cell asserts
// B's refusal AND that A's resource is unchanged afterwards. Real processes: the CLI adding keys, a
// `steamharness gateway` with API keys serving the scripted chat assistant (official `openai`
// client), a `steamharness server` with two accounts (its HTTP client store and raw HTTP).
// The MCP surfaces: matrix-mcp.test.ts.
//
// Gateway (tenants `key:acme`, `key:globex`, `key:broke`); ✓ = a test below:
// | kind \ action    | read                           | list    | write                           | cancel                  | resume (answer)                 | delete                  |
// |------------------|--------------------------------|---------|---------------------------------|-------------------------|---------------------------------|-------------------------|
// | conversation     | ✓ GET /v1/responses/{id} → 404 | n/a (1) | ✓ previous_response_id → 404    | ✓ no endpoint (404 unknown_url for anyone) | ✓ function_call_output, tool message → 400 as unknown | ✓ no endpoint (404 unknown_url) |
// | budget           | n/a (2)                        | n/a (2) | ✓ B's spend is B's; B exhausted → B refused, A served | n/a (3) | n/a (3)                   | n/a (2)                 |
// | KV, knowledge, memory, file | n/a here (4)        |         |                                 |                         |                                 |                         |
// Configuration server (accounts A and B, one project id in both); all ✓ in one test below:
// | project configuration | read, get, lookup, export → B's own empty project | list (read's configurations) → none of A's | update → not_found; setFields, import → B's own project | n/a (3) | n/a (3) | delete, select → not_found |
// Notes: (1) the gateway lists no conversations. (2) no remote surface reads, lists or deletes a
// budget: keys and budgets are administered with the CLI on the key store. (3) no such action on
// that kind. (4) the chat assistant served here has no tool that reaches the run's stores; the
// gateway's per-tenant data namespace is test/gateway/tenant-data.test.ts (a real gateway on
// loopback, the official client), the same stores over MCP are in matrix-mcp.test.ts. The
// configuration server has no sessions, runs, tasks or budgets; its admin key alone is no
// account (403, asserted below).
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import OpenAI from "openai";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { openGatewayKeyStore } from "../../src/compose/api-keys.js";
import { cleanup, tempDir } from "../cli/helpers.js";
import { chatAssistantProject, startGatewayProcess, type GatewayProcess } from "../fixtures/gateway-process.js";
import { addTenantKey } from "../fixtures/tenant-credentials.js";
import { openAIFailure as failure } from "../fixtures/openai-error-body.js";
import { ADMIN_KEY, createAccount, request, startServerProcess, type ServerProcess } from "../config-server/server-process.js";

jest.setTimeout(120_000);

const MODEL = "chat-assistant";
let tmp: string;
const assistant = chatAssistantProject();
afterAll(() => assistant.remove());

beforeAll(async () => {
  tmp = await tempDir("sh-ten-matrix-gw-");
});
afterAll(async () => {
  await cleanup(tmp);
});

/** The assistant's answer without the host input block the gateway puts before the user's words (which it echoes). */
const said = (response: { output_text: string }) => response.output_text.replace(/<host-input>[\s\S]*<\/host-input>/, "");

describe("TEN-1 … TEN-4 matrix: the gateway with API keys (a real process, the openai client)", () => {
  let gateway: GatewayProcess;
  let store: string;
  let acme: OpenAI;
  let globex: OpenAI;
  let broke: OpenAI;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    store = join(tmp, "keys");
    for (const [tenant, budget] of [["acme", "1000000"], ["globex", "1000000"], ["broke", "1"]] as const) secrets[tenant] = await addTenantKey(["--store", store], tenant, "--budget-tokens", budget);
    gateway = await startGatewayProcess(assistant.dir, ["--store", store], join(tmp, "gateway-data"));
    const client = (secret: string) => new OpenAI({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 });
    [acme, globex, broke] = [client(secrets.acme!), client(secrets.globex!), client(secrets.broke!)];
  }, 90_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  const UNKNOWN = "resp_000000000000000000000000000000000000000000000000";

  it("BUD-4 TEN-4 matrix (gateway): conversation × read (GET /v1/responses/{id}) and write (previous_response_id) — B gets the 404 of an unknown id; A reads and continues it", async () => {
    const first = await acme.responses.create({ model: MODEL, input: "one" });
    expect(said(first)).toBe("Hello! You said: one");
    const asUnknown = (seen: { status: unknown; code: unknown; message: string }) => ({ ...seen, message: seen.message.replace(first.id, UNKNOWN) });
    const read = await failure(() => globex.responses.retrieve(first.id));
    expect(read.status).toBe(404);
    expect(asUnknown(read)).toEqual(await failure(() => globex.responses.retrieve(UNKNOWN)));
    const continued = await failure(() => globex.responses.create({ model: MODEL, input: "two", previous_response_id: first.id }));
    expect(continued.status).toBe(404);
    expect(asUnknown(continued)).toEqual(await failure(() => globex.responses.create({ model: MODEL, input: "two", previous_response_id: UNKNOWN })));
    expect(said(await acme.responses.retrieve(first.id))).toBe("Hello! You said: one");
    expect(said(await acme.responses.create({ model: MODEL, input: "two", previous_response_id: first.id }))).toBe("Hello! You said: two");
  });

  it("TEN-4 matrix (gateway): conversation × cancel and delete — no such endpoint for anyone (404 unknown_url); A's response is still there", async () => {
    const mine = await acme.responses.create({ model: MODEL, input: "kept" });
    for (const [method, path] of [["DELETE", `/responses/${mine.id}`], ["POST", `/responses/${mine.id}/cancel`]] as const) {
      for (const secret of [secrets.globex!, secrets.acme!]) {
        const answer = await fetch(`${gateway.url}${path}`, { method, headers: { authorization: `Bearer ${secret}` } });
        expect([method, answer.status, ((await answer.json()) as { error: { code: string } }).error.code]).toEqual([method, 404, "unknown_url"]);
      }
    }
    expect(said(await acme.responses.retrieve(mine.id))).toBe("Hello! You said: kept");
  });

  it("BUD-4 TEN-3 matrix (gateway): paused run × resume — B answering A's pending request (Responses, Chat Completions) gets the 400 of an unknown request; A answers it", async () => {
    const paused = await acme.responses.create({ model: MODEL, input: "ask me" });
    expect(paused.status).toBe("incomplete");
    const call = paused.output.find((item) => item.type === "function_call") as { call_id: string };
    const answer = (callId: string) => [{ type: "function_call_output" as const, call_id: callId, output: "blue" }];
    const stranger = await failure(() => globex.responses.create({ model: MODEL, input: answer(call.call_id) }));
    expect(stranger.status).toBe(400);
    expect({ ...stranger, message: stranger.message.replace(call.call_id, "call_unknown") }).toEqual(await failure(() => globex.responses.create({ model: MODEL, input: answer("call_unknown") })));
    const chat = await failure(() => globex.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "ask me" }, { role: "tool", tool_call_id: call.call_id, content: "blue" }] }));
    expect(chat.status).toBe(400);
    expect(chat.message).toContain("No pending request");
    expect((await acme.responses.create({ model: MODEL, previous_response_id: paused.id, input: answer(call.call_id) })).output_text).toBe("You chose blue.");
  });

  it("BUD-4 matrix (gateway): budget × write — B's spend is charged to B's budget only; B's exhausted budget refuses B (429 insufficient_quota) and never A", async () => {
    const spent = async (tenant: string) => {
      const keys = await openGatewayKeyStore({ directory: store });
      try {
        const budget = await keys.budgets.read({ scope: "tenant", id: tenant }, Date.now());
        expect(budget.reserved.tokens).toBe(0);
        return budget.spent.tokens;
      } finally {
        await keys.close();
      }
    };
    const before = { acme: await spent("acme"), globex: await spent("globex") };
    await globex.responses.create({ model: MODEL, input: "spend" });
    expect(await spent("globex")).toBeGreaterThan(before.globex);
    expect(await spent("acme")).toBe(before.acme);
    const refused = await failure(() => broke.responses.create({ model: MODEL, input: "spend" }));
    expect([refused.status, refused.code]).toEqual([429, "insufficient_quota"]);
    expect(await spent("broke")).toBe(0);
    expect(await spent("acme")).toBe(before.acme);
    expect(said(await acme.responses.create({ model: MODEL, input: "still" }))).toBe("Hello! You said: still");
    expect(await spent("acme")).toBeGreaterThan(before.acme);
  });
});

describe("TEN-1 CFG-4 matrix: the configuration server with two accounts (a real process)", () => {
  const PROJECT = "5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d";
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess(["--sqlite", join(tmp, "server.sqlite")]);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("TEN-1 CFG-4 matrix (configuration server): project configuration × read, list, write, delete, select, import, export — B's account reaches only its own project of the same id; A's is unchanged", async () => {
    const [a, b] = [await createAccount(server.url, "matrix-a"), await createAccount(server.url, "matrix-b")];
    const storeA = createHttpProjectConfigurationStore({ url: server.url, credential: { token: a.token } });
    const storeB = createHttpProjectConfigurationStore({ url: server.url, credential: { token: b.token } });
    await storeA.setFields(PROJECT, [{ key: "title", type: "string" }], { expectedRevision: 0 });
    await storeA.create(PROJECT, { configurationId: "main", name: "A's", values: { title: "secret of A" } });
    await storeA.select(PROJECT, "main", { expectedRevision: 1 });
    const aBefore = await storeA.read(PROJECT);
    const aDocument = await storeA.exportProject(PROJECT);
    const code = (action: () => Promise<unknown>) => action().then(() => "resolved", (error: { code?: string }) => error.code);

    // read, list, export: B's project of that id is its own, empty.
    expect(await storeB.read(PROJECT)).toEqual({ projectId: PROJECT, revision: 0, fields: [], currentConfigurationId: null, configurations: [] });
    expect(await storeB.get(PROJECT, "main")).toBeNull();
    expect(await storeB.lookup(PROJECT, "main")).toEqual({ status: "absent", configurationId: "main" });
    expect(JSON.stringify(await storeB.exportProject(PROJECT))).not.toContain("secret of A");
    const raw = await request(server.url, "GET", `/v1/projects/${PROJECT}/configurations/main`, { authorization: `Bearer ${b.token}` });
    expect(raw).toEqual(await request(server.url, "GET", `/v1/projects/${PROJECT}/configurations/never-made`, { authorization: `Bearer ${b.token}` }));
    expect(JSON.stringify(raw.body)).not.toContain("secret of A");

    // write, delete, select naming A's configuration and A's revisions: not found for B.
    expect(await code(() => storeB.update(PROJECT, "main", { expectedRevision: 1, values: { title: "B was here" } }))).toBe("not_found");
    expect(await code(() => storeB.delete(PROJECT, "main", { expectedRevision: 1 }))).toBe("not_found");
    expect(await code(() => storeB.select(PROJECT, "main", { expectedRevision: 1 }))).toBe("not_found");
    // B's own writes (fields, an import of a document naming A's configuration) land in B's project only.
    await storeB.setFields(PROJECT, [{ key: "other", type: "number" }], { expectedRevision: 0 });
    await storeB.importProject(PROJECT, { ...(aDocument as object), currentConfigurationId: null, configurations: [] } as never, { expectedRevision: 1 });
    expect((await storeB.read(PROJECT)).configurations).toEqual([]);
    // Neither the admin key alone nor another account's token is A.
    expect((await request(server.url, "GET", `/v1/projects/${PROJECT}`, { authorization: `Bearer ${ADMIN_KEY}` })).status).toBe(403);

    expect(await storeA.read(PROJECT)).toEqual(aBefore);
    expect(aBefore.configurations.map((configuration) => configuration.configurationId)).toEqual(["main"]);
    expect((await storeA.get(PROJECT, "main"))?.values).toEqual({ title: "secret of A" });
  });
});
