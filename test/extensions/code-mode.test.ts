import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { describeCallableTools } from "../../src/app/agent/extensions/code-mode.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { harness, offlineNode, runNode, type Harness } from "../agent/helpers.js";

function sideEffect(name: string, effects: string[], replay: "safe" | "never" = "never"): AgentTool {
  return {
    name,
    label: name,
    description: `${name} (test): records its call`,
    parameters: Type.Object({ line: Type.String({ description: "What to record" }) }),
    replay,
    async execute(id, params) {
      effects.push(`${name}:${id}:${(params as { line: string }).line}`);
      return { content: [{ type: "text", text: JSON.stringify({ recorded: (params as { line: string }).line }) }] };
    },
  };
}

const codeCall = (code: string, id = "cm") => ({ toolCalls: [{ id, name: "codemode", arguments: { code } }] });
const permissions = { allow: ["read", "update_plan", "codemode"] };

async function events(h: Harness, runId: string) {
  const store = await h.storage.sessions!.openUnleased({ address: { projectId: "project-1", sessionKey: "agent" }, create: false });
  return store!.readRun(runId);
}

describe("EXT-4 session.codeMode: the codemode tool runs snippets in QuickJS with the run's tools", () => {
  it("EXT-4 a snippet calling a tool 3 times in a loop has the same durable results as 3 separate calls; nested rows sit under the codemode row", async () => {
    const direct: string[] = [];
    const h1 = harness();
    const separate = offlineNode(
      [{ toolCalls: ["a", "b", "c"].map((line, n) => ({ id: `d${n}`, name: "append_line", arguments: { line } })) }, { text: "done" }],
      { h: h1, permissionPolicy: permissions, session: { codeMode: {} }, extraTools: [sideEffect("append_line", direct)] },
    );
    const tools = [{ id: "append_line", autoApprove: true }];
    expect((await runNode(separate.node, { prompt: "x" }, h1.context("run-sep", { tools }))).error).toBeUndefined();

    const looped: string[] = [];
    const h2 = harness();
    const snippet = offlineNode(
      [codeCall("const out = [];\nfor (const line of ['a', 'b', 'c']) out.push(await tools.append_line({ line }));\nreturn out;"), { text: "done" }],
      { h: h2, permissionPolicy: permissions, session: { codeMode: {} }, extraTools: [sideEffect("append_line", looped)] },
    );
    const outcome = await runNode(snippet.node, { prompt: "x" }, h2.context("run-loop", { tools }));
    expect(outcome.error).toBeUndefined();
    expect(looped.map((entry) => entry.replace(/:[^:]+:/, ":"))).toEqual(direct.map((entry) => entry.replace(/:[^:]+:/, ":")));
    expect(looped).toEqual(["append_line:cm#0:a", "append_line:cm#1:b", "append_line:cm#2:c"]);
    const separateResults = (await events(h1, "run-sep")).flatMap((event) => (event.type === "tool_result" ? [event.payload.message.content[0]!.text] : []));
    const nested = (await events(h2, "run-loop")).flatMap((event) => (event.type === "extension" && event.payload.data.kind === "result" ? [event.payload.data] : []));
    expect(nested.map((data) => data.text)).toEqual(separateResults);
    expect(nested.map((data) => [data.name, data.index, data.isError])).toEqual([["append_line", 0, false], ["append_line", 1, false], ["append_line", 2, false]]);
    // The codemode result carries the snippet's return value; nested rows name their parent.
    const rows = outcome.items.filter((item) => item.metadata.partType === "tool");
    expect(rows.map((row) => [(row.content as { toolCallId: string }).toolCallId, row.metadata.parentToolCallId ?? null])).toEqual([["cm", null], ["cm#0", "cm"], ["cm#1", "cm"], ["cm#2", "cm"]]);
    expect((rows[0]!.content as { result: string }).result).toContain('result: [{"recorded":"a"},{"recorded":"b"},{"recorded":"c"}]');
    expect(outcome.output?.toolCallCount).toBe(1);
    // One model round trip for three tool calls.
    expect(snippet.model.calls).toHaveLength(2);
    // The tool's description is a .d.ts of what the snippet may call.
    const spec = snippet.model.calls[0]!.tools.find((tool) => tool.name === "codemode")!;
    expect(spec.description).toContain("append_line(args: { /** What to record */ line: string; }): Promise<any>;");
    expect(spec.description).not.toMatch(/\bask_user\(|\bcodemode\(/);
  });

  it("EXT-4 escape attempts and limits fail as clear tool errors; the host process survives", async () => {
    const attempts: Record<string, readonly [string, RegExp]> = {
      process: ["return process.env.HOME", /\[codemode\] the snippet failed: ReferenceError: 'process' is not defined/],
      require: ["return require('fs').readFileSync('/etc/passwd', 'utf8')", /ReferenceError: 'require' is not defined/],
      import: ["const fs = await import('node:fs'); return fs", /could not load module/],
      functionConstructor: ["return globalThis.constructor.constructor('return process')().pid", /ReferenceError: 'process' is not defined/],
      fetch: ["return await fetch('https://example.com')", /'fetch' is not defined/],
      loop: ["while (true) {}", /\[codemode\] wall time limit: the snippet exceeded its wall time of 1500 ms/],
      allocation: ["const big = new ArrayBuffer(1024 * 1024 * 1024); return big.byteLength", /\[codemode\] memory limit/],
      output: ["for (let i = 0; ; i++) console.log('line ' + i)", /\[codemode\] output limit/],
    };
    const h = harness();
    const names = Object.keys(attempts);
    const { node } = offlineNode([...names.map((name) => codeCall(attempts[name]![0], `x-${name}`)), { text: "survived" }], {
      h,
      permissionPolicy: permissions,
      session: { codeMode: { timeoutMs: 1500, memoryBytes: 32 * 1024 * 1024, maxOutputChars: 2000 } },
    });
    const outcome = await runNode(node, { prompt: "try" }, h.context("run-escape"));
    expect(outcome.error).toBeUndefined();
    const rows = new Map(outcome.items.filter((item) => item.metadata.partType === "tool").map((item) => [(item.content as { toolCallId: string }).toolCallId, item.content as { status: string; result: string }]));
    for (const name of names) {
      const row = rows.get(`x-${name}`)!;
      expect([name, row.status]).toEqual([name, "failed"]);
      expect(row.result).toMatch(attempts[name]![1]);
    }
    expect(process.pid).toBeGreaterThan(0);
    expect(outcome.items.some((item) => item.content === "survived")).toBe(true);
  }, 60_000);

  it("EXT-4 a nested call that needs approval pauses the run; resume continues without redoing committed nested calls", async () => {
    const h = harness();
    const effects: string[] = [];
    const tools = [{ id: "append_line", autoApprove: true }, { id: "deploy" }];
    const steps = [codeCall("await tools.append_line({ line: 'before' });\nawait tools.deploy({ line: 'prod' });\nawait tools.append_line({ line: 'after' });\nreturn 'ok';"), { text: "shipped" }];
    const options = { h, permissionPolicy: permissions, session: { codeMode: {} }, extraTools: [sideEffect("append_line", effects), sideEffect("deploy", effects)] };
    const { node } = offlineNode(steps, options);
    const paused = await runNode(node, { prompt: "ship" }, h.context("run-nested", { tools }));
    expect(isSteamharnessError(paused.error, "user_input_required")).toBe(true);
    expect((paused.error as { request: { toolCallId: string; toolId: string } }).request).toMatchObject({ toolCallId: "cm#1", toolId: "deploy" });
    expect(effects).toEqual(["append_line:cm#0:before"]);
    h.permissions.resolve((paused.error as { requestId: string }).requestId, { outcome: "approved" });
    const { node: again } = offlineNode(steps, options);
    const resumed = await runNode(again, { prompt: "ship" }, h.context("run-nested", { tools }));
    expect(resumed.error).toBeUndefined();
    expect(effects).toEqual(["append_line:cm#0:before", "deploy:cm#1:prod", "append_line:cm#2:after"]);
    // A denied nested call reaches the snippet as an error it may handle.
    const h2 = harness();
    const denied: string[] = [];
    const { node: denying } = offlineNode([codeCall("try { await tools.deploy({ line: 'x' }); } catch (e) { return 'refused: ' + e.message; }"), { text: "ok" }], { ...options, h: h2, extraTools: [sideEffect("deploy", denied)] });
    const first = await runNode(denying, { prompt: "x" }, h2.context("run-deny", { tools }));
    h2.permissions.resolve((first.error as { requestId: string }).requestId, { outcome: "denied", reason: "not today" });
    const second = await runNode(denying, { prompt: "x" }, h2.context("run-deny", { tools }));
    const row = second.items.find((item) => (item.content as { toolCallId?: string }).toolCallId === "cm")!;
    expect((row.content as { result: string }).result).toContain("refused: [approval_denied] tool deploy was denied: not today");
    expect(denied).toEqual([]);
  });

  it("EXT-4 describeCallableTools renders a .d.ts of the tools", () => {
    expect(describeCallableTools([{ name: "crm.find", description: "Find people", parameters: { type: "object", properties: { q: { type: "string" }, limit: { type: "integer" }, kind: { enum: ["lead", "customer"] } }, required: ["q"] } }])).toBe(
      'declare const tools: {\n  /** Find people */\n  "crm.find"(args: { q: string; limit?: number; kind?: "lead" | "customer"; }): Promise<any>;\n};',
    );
  });
});
