import { describe, expect, it } from "@jest/globals";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import OpenAI from "openai";
import { createMemorySessionBackend } from "../../src/compose/memory-session-backend.js";
import { createHarnessRuntime } from "../../src/compose/runtime.js";
import { startGateway } from "../../src/compose/gateway.js";
import type { SessionBackend } from "../../src/ports/session-backend.js";
import type { SessionAddress } from "../../src/ports/session-store.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { gatewayWith, lastUserText, MODEL, TOKEN, textOf } from "./helpers.js";

describe("GW-1 Responses API", () => {
  it("GW-1 a non-streaming response carries the answer as one assistant message", async () => {
    const { client, model } = await gatewayWith([{ text: "Hello from the agent." }]);
    const response = await client.responses.create({ model: MODEL, input: "Hello" });
    expect(response).toMatchObject({ object: "response", status: "completed", model: MODEL, error: null, incomplete_details: null, previous_response_id: null });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Hello from the agent.", annotations: [] }] });
    expect(response.output_text).toBe("Hello from the agent.");
    expect(response.usage!.total_tokens).toBeGreaterThan(0);
    expect(lastUserText(model.calls[0]!)).toContain("Hello");
  });

  it("GW-1 streaming sends the documented events in order, and the deltas make the answer", async () => {
    const { client } = await gatewayWith([{ text: "A streamed answer in several deltas." }]);
    const stream = await client.responses.create({ model: MODEL, input: "Stream please", stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    const collapsed = types.filter((type, i) => type !== "response.output_text.delta" || types[i - 1] !== "response.output_text.delta");
    expect(collapsed).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(types.filter((type) => type === "response.output_text.delta").length).toBeGreaterThan(1);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : []));
    expect(deltas.join("")).toBe("A streamed answer in several deltas.");
    const done = events.find((event) => event.type === "response.output_text.done");
    expect(done).toMatchObject({ text: "A streamed answer in several deltas.", output_index: 0, content_index: 0 });
    const created = events[0] as Extract<ResponseStreamEvent, { type: "response.created" }>;
    const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: "response.completed" }>;
    expect(created.response.status).toBe("in_progress");
    expect(completed.response).toMatchObject({ id: created.response.id, status: "completed", output_text: "A streamed answer in several deltas." });
    const added = events[2] as Extract<ResponseStreamEvent, { type: "response.output_item.added" }>;
    expect(deltas.length).toBe(events.filter((event) => event.type === "response.output_text.delta" && event.item_id === added.item.id).length);
  });

  it("GW-1 previous_response_id continues the conversation (the second turn sees the first); GET /v1/responses/{id} returns it", async () => {
    const { client, model } = await gatewayWith((request) => ({ text: request.messages.length > 1 ? "Your name is Ada." : "Nice to meet you, Ada." }));
    const first = await client.responses.create({ model: MODEL, input: "My name is Ada." });
    const second = await client.responses.create({ model: MODEL, input: "What is my name?", previous_response_id: first.id });
    expect(second.output_text).toBe("Your name is Ada.");
    expect(second.previous_response_id).toBe(first.id);
    const seen = JSON.stringify(model.calls[1]!.messages);
    expect(seen).toContain("My name is Ada.");
    expect(seen).toContain("Nice to meet you, Ada.");
    // An unrelated new conversation does not see it.
    await client.responses.create({ model: MODEL, input: "Who am I?" });
    expect(JSON.stringify(model.calls[2]!.messages)).not.toContain("Ada");
    const retrieved = await client.responses.retrieve(second.id);
    expect(retrieved).toMatchObject({ id: second.id, status: "completed", output_text: "Your name is Ada.", previous_response_id: first.id });
    await expect(client.responses.retrieve("resp_unknown")).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.create({ model: MODEL, input: "x", previous_response_id: "resp_unknown" })).rejects.toMatchObject({ status: 404, code: "previous_response_not_found" });
  });

  it("GW-1 store: false responses are not kept", async () => {
    const { client } = await gatewayWith([{ text: "ephemeral" }]);
    const response = await client.responses.create({ model: MODEL, input: "hi", store: false });
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
  });

  it("GW-1 a tool approval surfaces as status incomplete with an mcp_approval_request; an mcp_approval_response resumes the run", async () => {
    let executed = 0;
    const deploy: AgentTool = {
      name: "deploy", label: "Deploy", description: "Deploys", parameters: Type.Object({ target: Type.String() }),
      async execute() {
        executed++;
        return { content: [{ type: "text", text: "deployed" }] };
      },
    };
    const { client } = await gatewayWith(
      [{ text: "Deploying now.", toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }, { text: "Deployment finished." }],
      { agentOptions: { extraTools: [deploy], extraToolCatalog: [{ id: "deploy" }] } },
    );
    const paused = await client.responses.create({ model: MODEL, input: "Deploy to prod" });
    expect(paused.status).toBe("incomplete");
    expect(paused.incomplete_details).toEqual({ reason: "user_input_required" });
    const request = paused.output.find((item) => item.type === "mcp_approval_request");
    expect(request).toMatchObject({ type: "mcp_approval_request", name: "deploy", server_label: "steamharness" });
    expect(JSON.parse((request as { arguments: string }).arguments)).toEqual({ target: "prod" });
    expect(paused.output_text).toBe("Deploying now.");
    expect(executed).toBe(0);
    // A plain follow-up is refused while the request waits.
    await expect(client.responses.create({ model: MODEL, input: "hello?", previous_response_id: paused.id })).rejects.toMatchObject({ status: 400, code: "pending_user_input" });
    const stream = await client.responses.create({
      model: MODEL, stream: true, previous_response_id: paused.id,
      input: [{ type: "mcp_approval_response", approval_request_id: (request as { id: string }).id, approve: true }],
    });
    let final: Extract<ResponseStreamEvent, { type: "response.completed" }> | undefined;
    for await (const event of stream) if (event.type === "response.completed") final = event;
    expect(executed).toBe(1);
    // The whole turn is the answer: the text before the pause and after it.
    expect(final!.response.output_text).toBe("Deploying now.\n\nDeployment finished.");
    // The request was answered once; answering it again is refused.
    await expect(client.responses.create({ model: MODEL, input: [{ type: "mcp_approval_response", approval_request_id: (request as { id: string }).id, approve: true }] })).rejects.toMatchObject({ status: 400 });
  });

  it("GW-1 UI-7 an approval answered through the Responses API is recorded in the run's log as answered at the gateway by the caller's tenant", async () => {
    // The conversations' in-memory sessions, kept by the test so their logs can be read after the run.
    const opened: Array<{ backend: SessionBackend; address: SessionAddress }> = [];
    const base = createHarnessRuntime();
    const runtime = {
      ...base,
      conversationSessions: (): SessionBackend => {
        const backend = createMemorySessionBackend({ events: "objects" });
        return { ...backend, open: (request) => (opened.push({ backend, address: request.address }), backend.open(request)) };
      },
    };
    const deploy: AgentTool = { name: "deploy", label: "Deploy", description: "Deploys", parameters: Type.Object({}), execute: async () => ({ content: [{ type: "text", text: "deployed" }] }) };
    const gateway = await startGateway(
      {
        agent: { models: createOfflineModel({ steps: [{ text: "Deploying.", toolCalls: [{ name: "deploy", arguments: {} }] }, { text: "Done." }] }), retryDelayMs: 0, workdir: tempDirRemovedAfterAll("gateway-"), extraTools: [deploy], extraToolCatalog: [{ id: "deploy" }] },
        projectId: "answered-by", modelId: MODEL, token: TOKEN,
      },
      runtime,
    );
    try {
      const client = new OpenAI({ baseURL: gateway.url, apiKey: TOKEN, maxRetries: 0 });
      const paused = await client.responses.create({ model: MODEL, input: "Deploy" });
      const request = paused.output.find((item) => item.type === "mcp_approval_request") as { id: string };
      const before = Date.now();
      await client.responses.create({ model: MODEL, previous_response_id: paused.id, input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true }] });
      const decisions = new Map<string, { payload: unknown }>();
      // (The conversation's session is opened by each of its runs: read each log once.)
      for (const { backend, address } of new Map(opened.map((entry) => [`${entry.address.projectId}/${entry.address.conversationId}/${entry.address.sessionKey}`, entry])).values()) {
        const log = await backend.openUnleased({ address, create: false });
        for (const event of (await log?.readAfter(0)) ?? []) if (event.type === "approval_decision") decisions.set(event.eventId, event);
        await log?.close();
      }
      const [decision, ...more] = [...decisions.values()];
      expect(more).toEqual([]);
      expect(decision!.payload).toMatchObject({ outcome: "approved", answeredBy: { surface: "gateway", tenant: "token:static" } });
      expect((decision!.payload as { answeredBy: { at: number } }).answeredBy.at).toBeGreaterThanOrEqual(before);
    } finally {
      await gateway.close();
    }
  });

  it("GW-1 an ask_user question surfaces as a function_call; a function_call_output answers it", async () => {
    const { client, model } = await gatewayWith((request) => {
      const last = request.messages.at(-1)!;
      return last.role === "toolResult" ? { text: `You picked ${textOf(last.content)}.` } : { toolCalls: [{ name: "ask_user", arguments: { question: "Which colour?" } }] };
    });
    const stream = await client.responses.create({ model: MODEL, input: "Ask me", stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const incomplete = events.at(-1)!;
    expect(incomplete.type).toBe("response.incomplete");
    const call = (incomplete as Extract<ResponseStreamEvent, { type: "response.incomplete" }>).response.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "ask_user", arguments: JSON.stringify({ question: "Which colour?" }) });
    expect(events.filter((event) => event.type === "response.output_item.added").map((event) => (event as { item: { type: string } }).item.type)).toEqual(["function_call"]);
    const answered = await client.responses.create({
      model: MODEL, previous_response_id: (incomplete as { response: { id: string } }).response.id,
      input: [{ type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: "blue" }],
    });
    expect(answered.status).toBe("completed");
    expect(answered.output_text).toBe("You picked blue.");
    expect(model.calls).toHaveLength(2);
  });
});
