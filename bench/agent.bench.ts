/**
 * Agent harness overhead per turn (issue 5, item 11). One turn is model → `ls` tool → model with
 * the same scripted responses on both sides, measured in this process, interleaved in rounds
 * (ratio of medians):
 *
 * - `http` (the target, ≤ 1.3×): the provider library (pi-ai, openai-completions) talks to a
 *   loopback server that streams scripted Chat Completions SSE. Baseline: pi-ai called directly
 *   and the tool run by hand. Harness: createAgent through the provider adapter
 *   (createProviderModel) — session log, approvals, output items, ring and usage included.
 * - `inProcess`: the same turn on pi-ai's faux provider (no I/O at all), reported so the absolute
 *   harness cost per turn is visible; its ratio is not the target.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall, registerFauxProvider, streamSimple, type Context, type Model } from "@mariozechner/pi-ai";
import { createCodingTools } from "../src/adapters/driven/coding-tools/index.js";
import { MemoryStorage } from "../src/compose/memory-storage.js";
import { fromPiContent, fromPiToolCall, fromPiUsage, toPiContext } from "../src/adapters/driven/providers/pi-ai-mapping.js";
import { createProviderModel } from "../src/adapters/driven/providers/provider-model.js";
import { createAgent } from "../src/app/agent/create-agent.js";
import { createAskUserTool, createUpdatePlanTool } from "../src/app/agent/session-tools.js";
import type { ModelProvider, ModelStreamEvent } from "../src/ports/model-provider.js";
import { createNodeContext } from "../src/compose/node-context.js";

const ROUNDS = 5;
const HTTP_TURNS = 60;
const FAUX_TURNS = 150;
const PROMPT = "What is in the folder?";
const FIRST_TEXT = "Let me list the folder first.";
const FINAL_TEXT = "The folder holds a few files; nothing else to do.";

const workdir = mkdtempSync(path.join(tmpdir(), "agent-bench-"));
for (const name of ["a.ts", "b.ts", "README.md"]) writeFileSync(path.join(workdir, name), "x");
const coding = createCodingTools({ workdir });
const ls = coding.find((tool) => tool.name === "ls")!;
// The baseline offers the model the same tools the harness does under "read-only", so both sides
// send the same requests and only the harness differs.
const offered = [...coding.filter((tool) => ["read", "grep", "find", "ls"].includes(tool.name)), createUpdatePlanTool(), createAskUserTool()];
const toolSpecs = offered.map((tool) => ({ name: tool.name, description: tool.description, parameters: JSON.parse(JSON.stringify(tool.parameters)) }));

// --- The loopback Chat Completions server: scripted SSE, decided by the last message's role.
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "bench", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "bench", choices: [], usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 } })}\n\n`;
const body = async (req: IncomingMessage): Promise<string> => {
  let text = "";
  for await (const part of req) text += part;
  return text;
};
const server = createServer(async (req, res) => {
  const request = JSON.parse(await body(req)) as { messages: Array<{ role: string }> };
  res.writeHead(200, { "content-type": "text/event-stream" });
  if (request.messages.at(-1)?.role === "tool") {
    res.write(chunk({ role: "assistant", content: FINAL_TEXT.slice(0, 20) }));
    res.write(chunk({ content: FINAL_TEXT.slice(20) }));
    res.write(chunk({}, "stop"));
  } else {
    res.write(chunk({ role: "assistant", content: FIRST_TEXT }));
    res.write(chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "ls", arguments: "" } }] }));
    res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"."}' } }] }));
    res.write(chunk({}, "tool_calls"));
  }
  res.end(`${usage}data: [DONE]\n\n`);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
const httpModel: Model<"openai-completions"> = {
  id: "bench", name: "bench", api: "openai-completions", provider: "openai", baseUrl, reasoning: false, input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128_000, maxTokens: 1024,
};

// --- pi-ai's faux provider with the same two responses.
const faux = registerFauxProvider({ api: "bench-faux", provider: "faux", models: [{ id: "bench-model", contextWindow: 128_000 }] });
const fauxModel = faux.getModel();
const script = (context: Context) =>
  context.messages.at(-1)?.role === "toolResult"
    ? fauxAssistantMessage(fauxText(FINAL_TEXT))
    : fauxAssistantMessage([fauxText(FIRST_TEXT), fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
const fauxProvider: ModelProvider = {
  descriptor: { provider: "faux", model: "bench-model", apiKind: "openai-completions", contextWindow: 128_000 },
  async *stream(request): AsyncIterable<ModelStreamEvent> {
    const context = toPiContext(request, { api: "openai-completions", provider: "faux", model: "bench-model" });
    faux.setResponses([script(context)]);
    for await (const event of streamSimple(fauxModel, context)) {
      if (event.type === "text_delta") yield { type: "text_delta", index: event.contentIndex, delta: event.delta };
      else if (event.type === "toolcall_end") yield { type: "toolcall_end", index: event.contentIndex, toolCall: fromPiToolCall(event.toolCall) };
      else if (event.type === "done") yield { type: "done", response: { content: fromPiContent(event.message), usage: fromPiUsage(event.message.usage), stopReason: event.reason } };
    }
  },
};

/** The baseline: the provider library called directly, the tool run by hand. */
async function directTurn(model: Model<string>, options: { apiKey?: string }, beforeEach?: (context: Context) => void): Promise<void> {
  const context: Context = { messages: [{ role: "user", content: PROMPT, timestamp: Date.now() }], tools: toolSpecs };
  for (let step = 0; step < 4; step++) {
    beforeEach?.(context);
    const events = streamSimple(model, context, options);
    for await (const _event of events) {
      // Consumed as a caller rendering the stream would.
    }
    const message = await events.result();
    if (message.stopReason === "error") throw new Error(message.errorMessage);
    context.messages.push(message);
    const calls = message.content.filter((block) => block.type === "toolCall");
    if (calls.length === 0) return;
    for (const call of calls) {
      const result = await ls.execute(call.id, call.arguments);
      context.messages.push({ role: "toolResult", toolCallId: call.id, toolName: call.name, content: result.content, isError: false, timestamp: Date.now() });
    }
  }
}

/** The harness: one agent; a fresh in-memory session per turn so both sides send the same conversation. */
function harnessTurn(model: ModelProvider): (turn: number) => Promise<void> {
  const agent = createAgent({ models: model, workdir, permissionPolicy: "read-only", retryDelayMs: 0 });
  return async (turn) => {
    const context = createNodeContext({ projectId: "bench", storage: new MemoryStorage(), runId: `run-${turn}` });
    let chunks = 0;
    for await (const _chunk of agent.run({ prompt: PROMPT }, context)) chunks++;
    if (chunks === 0) throw new Error("no output");
  };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * Runs both sides turn by turn, alternating (so load from other processes hits both alike), and
 * returns the median per-turn wall time of each over the rounds, plus this process's CPU time per
 * turn (steadier than wall time on a busy machine).
 */
async function compare(direct: (turn: number) => Promise<void>, harness: (turn: number) => Promise<void>, turns: number) {
  for (let i = 0; i < Math.ceil(turns / 3); i++) {
    await direct(i);
    await harness(i);
  }
  const d: number[] = [];
  const h: number[] = [];
  const dCpu: number[] = [];
  const hCpu: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    let directNs = 0n;
    let harnessNs = 0n;
    let directCpu = 0;
    let harnessCpu = 0;
    for (let i = 0; i < turns; i++) {
      const turn = round * 100_000 + i;
      const c0 = cpuMs();
      const t0 = process.hrtime.bigint();
      await direct(turn);
      const t1 = process.hrtime.bigint();
      const c1 = cpuMs();
      await harness(turn);
      const t2 = process.hrtime.bigint();
      const c2 = cpuMs();
      directNs += t1 - t0;
      harnessNs += t2 - t1;
      directCpu += c1 - c0;
      harnessCpu += c2 - c1;
    }
    d.push(Number(directNs) / 1e6 / turns);
    h.push(Number(harnessNs) / 1e6 / turns);
    dCpu.push(directCpu / turns);
    hCpu.push(harnessCpu / turns);
  }
  const directMs = median(d);
  const harnessMs = median(h);
  return {
    turnsPerRound: turns,
    rounds: ROUNDS,
    directMsPerTurn: Number(directMs.toFixed(4)),
    harnessMsPerTurn: Number(harnessMs.toFixed(4)),
    harnessOverheadMsPerTurn: Number((harnessMs - directMs).toFixed(4)),
    ratio: Number((harnessMs / directMs).toFixed(2)),
    directCpuMsPerTurn: Number(median(dCpu).toFixed(4)),
    harnessCpuMsPerTurn: Number(median(hCpu).toFixed(4)),
    cpuRatio: Number((median(hCpu) / median(dCpu)).toFixed(2)),
  };
}

const http = await compare(
  () => directTurn(httpModel, { apiKey: "bench-key" }),
  harnessTurn(createProviderModel({ apiKind: "openai-completions", baseUrl, apiKey: "bench-key", model: "bench", maxTokens: 1024 })),
  HTTP_TURNS,
);
const inProcess = await compare(() => directTurn(fauxModel, {}, (context) => faux.setResponses([script(context)])), harnessTurn(fauxProvider), FAUX_TURNS);
server.close();
faux.unregister();

const result = {
  bench: "agent",
  at: new Date().toISOString(),
  node: process.version,
  turn: "model → ls tool → model, scripted",
  http: { ...http, target: 1.3, meetsTarget: http.ratio <= 1.3, note: "pi-ai openai-completions against a loopback SSE server; harness via createProviderModel" },
  inProcess: { ...inProcess, note: "pi-ai faux provider, no I/O: the harness's absolute cost per turn; not the target" },
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/agent.json", `${JSON.stringify(result, null, 2)}\n`);
console.log(`http:      direct ${http.directMsPerTurn} ms/turn, createAgent ${http.harnessMsPerTurn} ms/turn → ${http.ratio}× (target ≤ 1.3×); CPU ${http.directCpuMsPerTurn} vs ${http.harnessCpuMsPerTurn} ms/turn → ${http.cpuRatio}×`);
console.log(`in-process: direct ${inProcess.directMsPerTurn} ms/turn, createAgent ${inProcess.harnessMsPerTurn} ms/turn → ${inProcess.ratio}× (overhead ${inProcess.harnessOverheadMsPerTurn} ms/turn); CPU ${inProcess.directCpuMsPerTurn} vs ${inProcess.harnessCpuMsPerTurn} ms/turn`);
