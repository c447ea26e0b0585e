import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { entrypointInputSchema, toJsonSchema } from "../../src/domain/workflow/param-schema.js";
import { PROGRESS_INTERVAL_MS } from "../../src/adapters/driving/mcp/workflow-server.js";
import { progressIntervalFromEnv, PROGRESS_INTERVAL_MS_ENV } from "../../src/adapters/driving/mcp/serve-workflow.js";
import { alive, cleanEnv, cleanup, FAKE_SECRET, KITCHEN, KITCHEN_ID, startMcp, tempDir, waitFor, type McpSession } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(90_000);

let tmp: string;
let session: McpSession;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-");
  // Heartbeats every 250 ms instead of PROGRESS_INTERVAL_MS (2 s), so "long runs" below need not be long.
  session = await startMcp(KITCHEN, ["--data-dir", join(tmp, "data")], { env: cleanEnv({ [PROGRESS_INTERVAL_MS_ENV]: "250" }) });
}, 60_000);
afterAll(async () => {
  await session?.close();
  await cleanup(tmp);
});

const call = (name: string, args: Record<string, unknown> = {}) => session.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

async function invalidParams(name: string, args: Record<string, unknown>): Promise<string> {
  try {
    await call(name, args);
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    return (error as McpError).message;
  }
  throw new Error("expected InvalidParams");
}

describe("MCP-1 catalog", () => {
  it("MCP-1 names the server workflow-<id> and exposes one tool per entrypoint with title and description", async () => {
    expect(session.client.getServerVersion()).toMatchObject({ name: `workflow-${KITCHEN_ID}`, version: "2.3.4" });
    expect(session.client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ["approve", "ask_array", "ask_file", "ask_kinds", "ask_twice", "attach", "crash", "echo", "env", "noisy", "noisy_fail", "sleep", "slow", "store", "throws"].sort(),
    );
    expect(tools.find((tool) => tool.name === "echo")).toMatchObject({ title: "Echo", description: "Returns its params" });
    expect(tools.find((tool) => tool.name === "crash")).toMatchObject({ title: "Crash", description: "Crash" });
  });

  it("MCP-3 publishes the TypeBox schema of the static params, additionalProperties false", async () => {
    const { tools } = await session.client.listTools();
    const echo = tools.find((tool) => tool.name === "echo")!;
    expect(echo.inputSchema.additionalProperties).toBe(false);
    expect(echo.inputSchema.required).toEqual(["text"]);
    expect(echo.inputSchema.properties).toMatchObject({
      mode: { type: "string", enum: ["a", "b"], default: "a" },
      tags: { type: "array", items: { type: "string" } },
      colors: { type: "array", uniqueItems: true, items: { type: "string", enum: ["red", "green"] } },
      due: { type: "string", format: "date" },
      docs: { type: "array", items: { type: "string" } },
    });
    expect(echo.inputSchema).toEqual(toJsonSchema(entrypointInputSchema([
      { name: "text", type: "string", required: true, description: "Some text" },
      { name: "mode", type: "string", options: ["a", "b"], default: "a" },
      { name: "count", type: "number" },
      { name: "flag", type: "boolean" },
      { name: "tags", type: "string", multiple: true },
      { name: "colors", type: "checkboxes", options: ["red", "green"] },
      { name: "due", type: "string", format: "date" },
      { name: "doc", type: "file" },
      { name: "docs", type: "file", multiple: true },
    ])));
  });
});

describe("MCP-7 results", () => {
  it("MCP-7 success: structuredContent { runId, status, entrypointId, entrypointTitle, output } and the same JSON as text", async () => {
    const result = await call("echo", { text: "hi", count: 2 });
    expect(result.isError).toBeUndefined();
    expect(Object.keys(result.structuredContent!).sort()).toEqual(["entrypointId", "entrypointTitle", "output", "runId", "status"]);
    expect(result.structuredContent).toMatchObject({ status: "success", entrypointId: "echo", entrypointTitle: "Echo" });
    const output = result.structuredContent!.output as { params: unknown; runId: string; projectId: string };
    expect(output.params).toEqual({ text: "hi", count: 2, mode: "a" });
    expect(output.runId).toBe(result.structuredContent!.runId);
    expect(output.projectId).toBe(KITCHEN_ID);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(result.structuredContent) }]);
  });

  it("MCP-7 a run printing a fake secret to stdout and stderr never leaks it into the result", async () => {
    const result = await call("noisy");
    expect(result.structuredContent).toMatchObject({ status: "success", output: { ok: true } });
    expect(JSON.stringify(result)).not.toContain(FAKE_SECRET);
    await waitFor(() => session.stderr().includes(`console.info ${FAKE_SECRET}`));
    expect(session.stderr()).toContain(`stdout.write ${FAKE_SECRET}`);
  });

  it("MCP-7 a non-zero business errCode is isError with a concise error and no output or stdout", async () => {
    const result = await call("noisy_fail");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      runId: expect.stringMatching(/^\d{8}-[0-9a-f]{12}$/),
      status: "failed",
      entrypointId: "noisy_fail",
      entrypointTitle: "Noisy failure",
      error: { code: "business_error", message: "business failure", errCode: 7 },
    });
    expect(JSON.stringify(result)).not.toContain(FAKE_SECRET);
  });

  it("MCP-7 a thrown error is concise and credentials from .env are redacted", async () => {
    const result = await call("throws");
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("run_failed");
    expect(error.message).toBe("boom with key [redacted] and none");
    expect(JSON.stringify(result)).not.toContain("kitchen-api-key-1234567890");
    expect(JSON.stringify(result)).not.toMatch(/at .*workflow\.mjs/);
  });

  it.each([
    ["a wrong type", { text: 5 }, "arguments.text: Expected string"],
    ["an extra property", { text: "x", nope: 1 }, "arguments.nope: unknown property"],
    ["a missing required property", {}, "arguments.text: required property is missing"],
    ["a value outside the options", { text: "x", mode: "z" }, 'arguments.mode: must be one of "a", "b"'],
    ["a malformed date", { text: "x", due: "31/01/2026" }, "arguments.due: Expected string to match 'date' format"],
  ])("MCP-7 / DX-17 malformed arguments (%s) are a tool result with isError and the validation message", async (_label, args, message) => {
    const result = await call("echo", args);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ runId: null, status: "rejected", entrypointId: "echo", entrypointTitle: expect.any(String), error: { code: "input_validation", message: expect.stringContaining(message) } });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(result.structuredContent);
  });

  it("MCP-7 an unknown tool is InvalidParams", async () => {
    expect(await invalidParams("nope", {})).toContain("unknown tool: nope");
  });

  it("DX-4 an InvalidParams message carries the MCP error prefix once", async () => {
    expect(await invalidParams("nope", {})).toBe("MCP error -32602: unknown tool: nope");
  });

  it("DX-4 a run that throws prints its stack on the server's stderr, credentials redacted", async () => {
    await call("throws");
    await waitFor(() => /throws\) threw:\nError: boom/.test(session.stderr()));
    expect(session.stderr()).toMatch(/Error: boom with key \[redacted\] and none\n\s+at .*workflow\.mjs:\d+/);
    expect(session.stderr()).not.toContain("kitchen-api-key-1234567890");
  });
});

describe("MCP-7 attachments", () => {
  it("MCP-7 a run's attachments follow the JSON text as image and embedded-resource blocks; structuredContent keeps its shape", async () => {
    const result = await call("attach");
    expect(result.isError).toBeUndefined();
    const structured = result.structuredContent as { runId: string; output: { note: string; blob: string } };
    expect(Object.keys(structured).sort()).toEqual(["entrypointId", "entrypointTitle", "output", "runId", "status"]);
    expect(result.content[0]).toEqual({ type: "text", text: JSON.stringify(structured) });
    expect(result.content.slice(1)).toEqual([
      { type: "resource", resource: { uri: `steamharness://files/${KITCHEN_ID}/${structured.output.note}`, mimeType: "text/markdown", text: "# Note\nünïcode kept" } },
      { type: "image", mimeType: "image/png", data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff]).toString("base64") },
      { type: "resource", resource: { uri: `steamharness://files/${KITCHEN_ID}/${structured.output.blob}`, mimeType: "application/octet-stream", blob: Buffer.from([0xff, 0xfe, 0x00]).toString("base64") } },
    ]);
  });

  it("MCP-7 an attachment missing from the managed-file store makes the call an error naming it, without the output", async () => {
    const result = await call("attach", { missing: true });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "failed", error: { code: "not_found", message: "the run's attachment no-such-file is not in the managed-file store" } });
    expect(JSON.stringify(result)).not.toContain("attached");
  });
});

describe("MCP-5 isolated workers", () => {
  // One process per call is the --fresh-worker mode; by default a worker whose run ended cleanly
  // serves later calls (MCP-9, test/cli/mcp-pool.test.ts covers both).
  it("MCP-5 calls run in worker processes, never in the server process", async () => {
    const pids = new Set<number>();
    for (let i = 0; i < 3; i++) pids.add(((await call("echo", { text: "x" })).structuredContent!.output as { pid: number }).pid);
    expect(pids.size).toBeGreaterThanOrEqual(1);
    expect(pids.has(session.transport.pid!)).toBe(false);
  });

  it("MCP-5 a crashed worker yields isError and the server keeps serving", async () => {
    const crashed = await call("crash");
    expect(crashed.isError).toBe(true);
    expect(crashed.structuredContent).toMatchObject({ status: "failed", error: { code: "worker_crashed", message: "the run failed: the worker exited with code 3" } });
    const next = await call("echo", { text: "still here" });
    expect(next.structuredContent).toMatchObject({ status: "success" });
  });

  it("MCP-5 cancelling a call kills its worker within 1 second", async () => {
    const pidFile = join(tmp, "sleep.pid");
    const controller = new AbortController();
    const pending = session.client.callTool({ name: "sleep", arguments: { pidFile } }, undefined, { signal: controller.signal });
    pending.catch(() => undefined);
    let pid = 0;
    await waitFor(async () => {
      pid = Number(await readFile(pidFile, "utf8").catch(() => "0"));
      return pid > 0;
    }, 20_000);
    expect(alive(pid)).toBe(true);
    const abortedAt = Date.now();
    controller.abort("test cancels");
    await expect(pending).rejects.toThrow();
    await waitFor(() => !alive(pid), 1000);
    expect(Date.now() - abortedAt).toBeLessThanOrEqual(1000);
    expect((await call("echo", { text: "after cancel" })).structuredContent).toMatchObject({ status: "success" });
  });
});

describe("long runs", () => {
  it("a client that asks for progress gets heartbeats and can keep a long call alive", async () => {
    // The call outlasts its timeout (6 heartbeats long): only the heartbeats keep it alive.
    const progress: number[] = [];
    const result = (await session.client.callTool({ name: "slow", arguments: { ms: 2500 } }, undefined, {
      timeout: 1500,
      resetTimeoutOnProgress: true,
      onprogress: (event) => progress.push(event.progress),
    })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: "success", output: { waited: 2500 } });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("ARCH-12 the heartbeat comes every PROGRESS_INTERVAL_MS (2 s) unless STEAMHARNESS_MCP_PROGRESS_MS names a whole number of milliseconds (10 or more); any other value is input_validation naming the variable", () => {
    expect(PROGRESS_INTERVAL_MS).toBe(2000);
    expect(progressIntervalFromEnv({})).toEqual({});
    expect(progressIntervalFromEnv({ [PROGRESS_INTERVAL_MS_ENV]: "250" })).toEqual({ progressIntervalMs: 250 });
    for (const value of ["abc", "9", "-5", "1.5"]) {
      expect(() => progressIntervalFromEnv({ [PROGRESS_INTERVAL_MS_ENV]: value })).toThrow(expect.objectContaining({ code: "input_validation", message: expect.stringContaining(PROGRESS_INTERVAL_MS_ENV) }));
    }
  });
});

describe("MCP-6 without elicitation support", () => {
  it("MCP-6 a run waiting for input returns interaction_required with runId and pending fields", async () => {
    const result = await call("ask_twice");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      runId: expect.stringMatching(/^\d{8}-[0-9a-f]{12}$/),
      status: "waiting_for_input",
      entrypointId: "ask_twice",
      entrypointTitle: "Ask twice",
      error: {
        code: "interaction_required",
        message: "the run is waiting for input and this MCP client does not support form elicitation",
        pending: { kind: "input", requestId: "input-1", message: "First question?", fields: ["answer (string, required)"] },
        // DX-10: how a later call answers it (test/cli/mcp-answer.test.ts).
        answerLater: { tool: "ask_twice", _meta: { "steamharness/answer": { runId: result.structuredContent!.runId, requestId: "input-1", values: "{ <field>: <value> }" } } },
      },
    });
  });

  it("MCP-6 a tool-approval wait returns interaction_required and is never auto-approved", async () => {
    const result = await call("approve");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: "waiting_for_input",
      error: { code: "interaction_required", pending: { kind: "approval", fields: ["decision (string, options: approve|deny, required)"] } },
    });
    expect(JSON.stringify(result)).not.toContain('"sent":true');
  });
});
