import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError, UserInputRequiredError } from "../../src/domain/errors.js";
import { harness, kinds, offlineNode, ofKind, runNode } from "./helpers.js";

const writeStep = (file: string) => ({ text: "I will write the file.", toolCalls: [{ id: "call-w", name: "write", arguments: { path: file, content: "hello" } }] });

describe("pause and resume", () => {
  it("SES-8 tool approval pauses with user_input_required and resumes with the original runId and request id", async () => {
    const h = harness();
    const { node, model } = offlineNode([writeStep("out.txt"), { text: "Written." }], { h, permissionPolicy: "ask" });
    const first = await runNode(node, { prompt: "write it" }, h.context("run-approve"));
    expect(first.error).toBeInstanceOf(UserInputRequiredError);
    const pause = first.error as UserInputRequiredError;
    expect(pause.code).toBe("user_input_required");
    expect(pause.request).toMatchObject({ kind: "tool_approval", toolId: "write", runId: "run-approve", toolCallId: "call-w" });
    expect(h.permissions.pending()).toEqual([pause.requestId]);
    expect(ofKind(first.items, "agent-error")).toHaveLength(0);
    expect(ofKind(first.items, "agent-part", "file")[0]!.content).toMatchObject({ status: "awaiting_approval" });
    expect(existsSync(path.join(h.workdir, "out.txt"))).toBe(false);

    h.permissions.resolve(pause.requestId, { outcome: "approved" });
    const second = await runNode(node, { prompt: "write it" }, h.context("run-approve"));
    expect(second.error).toBeUndefined();
    expect(readFileSync(path.join(h.workdir, "out.txt"), "utf8")).toBe("hello");
    expect(h.permissions.requests.map((request) => request.requestId)).toEqual([pause.requestId, pause.requestId]);
    expect(model.calls).toHaveLength(2);
    // The resumed run keeps the earlier items with their ids, then continues.
    const firstIds = first.items.filter((item) => item.metadata.kind === "agent-part").map((item) => item.id);
    expect(second.items.filter((item) => item.metadata.kind === "agent-part").map((item) => item.id).slice(0, firstIds.length)).toEqual(firstIds);
    expect(ofKind(second.items, "agent-part", "text").map((item) => item.content)).toEqual(["I will write the file.", "Written."]);
  });

  it("SES-8 a new run never reuses an old approval", async () => {
    const h = harness();
    const { node } = offlineNode([writeStep("a.txt"), { text: "Written." }], { h, permissionPolicy: "ask" });
    const first = await runNode(node, { prompt: "write" }, h.context("run-old"));
    const oldId = (first.error as UserInputRequiredError).requestId;
    h.permissions.resolve(oldId, { outcome: "approved" });
    expect((await runNode(node, { prompt: "write" }, h.context("run-old"))).error).toBeUndefined();

    const other = offlineNode([writeStep("a.txt"), { text: "Written." }], { h, permissionPolicy: "ask", sessionKey: "second" });
    const fresh = await runNode(other.node, { prompt: "write" }, h.context("run-new"));
    expect(fresh.error).toBeInstanceOf(UserInputRequiredError);
    expect((fresh.error as UserInputRequiredError).requestId).not.toBe(oldId);
  });

  it("SES-8 a model that repeats a tool-call id never gets an earlier call's approval or result", async () => {
    const h = harness();
    const { node, model } = offlineNode(
      [
        { toolCalls: [{ id: "call_0", name: "write", arguments: { path: "one.txt", content: "1" } }] },
        { toolCalls: [{ id: "call_0", name: "write", arguments: { path: "two.txt", content: "2" } }] },
        { text: "done" },
      ],
      { h, permissionPolicy: "ask" },
    );
    const first = await runNode(node, { prompt: "p" }, h.context("run-dup"));
    h.permissions.resolve((first.error as UserInputRequiredError).requestId, { outcome: "approved" });
    const second = await runNode(node, { prompt: "p" }, h.context("run-dup"));
    const again = second.error as UserInputRequiredError;
    expect(again).toBeInstanceOf(UserInputRequiredError);
    expect(again.requestId).not.toBe((first.error as UserInputRequiredError).requestId);
    expect(existsSync(path.join(h.workdir, "two.txt"))).toBe(false);
    h.permissions.resolve(again.requestId, { outcome: "approved" });
    expect((await runNode(node, { prompt: "p" }, h.context("run-dup"))).error).toBeUndefined();
    expect(readFileSync(path.join(h.workdir, "two.txt"), "utf8")).toBe("2");
    const ids = model.calls[2]!.messages.filter((message) => message.role === "toolResult").map((message) => message.toolCallId);
    expect(new Set(ids).size).toBe(2);
  });

  it("SES-8 a denied tool becomes an error result for the model and the run goes on", async () => {
    const h = harness();
    const { node, model } = offlineNode([writeStep("d.txt"), { text: "Understood." }], { h, permissionPolicy: "ask" });
    const first = await runNode(node, { prompt: "write" }, h.context("run-deny"));
    h.permissions.resolve((first.error as UserInputRequiredError).requestId, { outcome: "denied", reason: "not now" });
    const second = await runNode(node, { prompt: "write" }, h.context("run-deny"));
    expect(second.error).toBeUndefined();
    const result = model.calls[1]!.messages.find((message) => message.role === "toolResult")!;
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("not now") }] });
    expect(existsSync(path.join(h.workdir, "d.txt"))).toBe(false);
  });

  it("SES-8 ask_user pauses with a question and resumes via askResume", async () => {
    const h = harness();
    const { node, model } = offlineNode(
      [{ text: "I need to know one thing.", toolCalls: [{ id: "call-q", name: "ask_user", arguments: { question: "Which colour?" } }] }, { text: "Blue it is." }],
      { h, mode: "plan", permissionPolicy: "ask" },
    );
    const first = await runNode(node, { prompt: "paint" }, h.context("run-ask"));
    const pause = first.error as UserInputRequiredError;
    expect(pause.request).toMatchObject({ kind: "question", question: "Which colour?", runId: "run-ask" });
    expect(h.userInput.requests.map((request) => request.kind)).toEqual(["question"]);
    expect(ofKind(first.items, "agent-part", "tool")[0]!.content).toMatchObject({ tool: "ask_user", status: "awaiting_input" });
    // OUT-4: the question's text is ordinary body, not a plan card; no plan approval is asked.
    expect(ofKind(first.items, "agent-notice")).toHaveLength(0);
    expect(ofKind(first.items, "agent-part", "text").map((item) => item.content)).toEqual(["I need to know one thing."]);

    const second = await runNode(node, { prompt: "paint", askResume: { requestId: pause.requestId, answer: "blue" } }, h.context("run-ask"));
    expect(second.error).toBeInstanceOf(UserInputRequiredError);
    expect((second.error as UserInputRequiredError).request.kind).toBe("plan");
    const toolResult = model.calls[1]!.messages.find((message) => message.role === "toolResult")!;
    expect(toolResult).toMatchObject({ toolCallId: "call-q", isError: false, content: [{ text: "blue" }] });
  });

  it("SES-8 an ask_user answer recorded through context.userInput resumes the run too; a decline reaches the model", async () => {
    const h = harness();
    const { node, model } = offlineNode(
      [{ toolCalls: [{ id: "q1", name: "ask_user", arguments: { question: "Name?" } }, { id: "q2", name: "ask_user", arguments: { question: "Age?" } }] }, { text: "Thanks." }],
      { h },
    );
    const first = await runNode(node, { prompt: "p" }, h.context("run-ask-port"));
    h.userInput.resolve((first.error as UserInputRequiredError).requestId, { outcome: "answered", values: { answer: "Ada" } });
    const second = await runNode(node, { prompt: "p" }, h.context("run-ask-port"));
    const secondId = (second.error as UserInputRequiredError).requestId;
    expect(secondId).not.toBe((first.error as UserInputRequiredError).requestId);
    h.userInput.resolve(secondId, { outcome: "declined" });
    const third = await runNode(node, { prompt: "p" }, h.context("run-ask-port"));
    expect(third.error).toBeUndefined();
    const results = model.calls[1]!.messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => message.content[0]!.text)).toEqual(["Ada", "The user declined to answer."]);
  });

  it("OUT-4 SES-8 plan mode: a final plan event makes the card, approval continues with new ids", async () => {
    const h = harness();
    const { node, model } = offlineNode(
      [
        { text: "Let me look around.", toolCalls: [{ name: "ls", arguments: {} }] },
        { text: "1. Create notes.md\n2. Fill it" },
        { text: "Creating it.", toolCalls: [{ name: "write", arguments: { path: "notes.md", content: "# Notes" } }] },
        { text: "Done." },
      ],
      { h, mode: "plan", permissionPolicy: "workspace-write" },
    );
    const first = await runNode(node, { prompt: "plan notes" }, h.context("run-plan"));
    const pause = first.error as UserInputRequiredError;
    expect(pause.request).toMatchObject({ kind: "plan", plan: "1. Create notes.md\n2. Fill it" });
    expect(model.calls[0]!.tools.map((tool) => tool.name)).not.toContain("write");
    const cards = first.items.filter((item) => item.metadata.plan === true);
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ content: "1. Create notes.md\n2. Fill it", metadata: { kind: "agent-notice", plan: true } });
    expect(ofKind(first.items, "agent-part", "text").map((item) => item.content)).toEqual(["Let me look around."]);

    h.userInput.resolve(pause.requestId, { outcome: "answered", values: { approved: true } });
    const second = await runNode(node, { prompt: "plan notes" }, h.context("run-plan"));
    expect(second.error).toBeUndefined();
    expect(readFileSync(path.join(h.workdir, "notes.md"), "utf8")).toBe("# Notes");
    expect(model.calls.map((request) => request.tools.some((tool) => tool.name === "write"))).toEqual([false, false, true, true]);
    const firstIds = first.items.map((item) => item.id);
    const secondIds = second.items.map((item) => item.id);
    expect(secondIds.slice(0, firstIds.length)).toEqual(firstIds);
    const continuation = second.items.slice(firstIds.length);
    expect(continuation.map((item) => item.metadata.kind)).toEqual(["agent-notice", "agent-part", "agent-part", "agent-part"]);
    expect(continuation[0]!.content).toBe("Plan approved.");
    expect(second.items.filter((item) => item.metadata.plan === true)).toHaveLength(1);
    expect(second.output!.agent).toBe("plan");
  });

  it("OUT-4 host-driven plan runs keep the declared agent-answer id and write the whole turn into it", async () => {
    const h = harness();
    const { node } = offlineNode(
      [{ text: "Plan: write a file." }, { text: "Wrote it." }],
      { h, mode: "plan", outputItemId: "host-answer" },
    );
    const first = await runNode(node, { prompt: "p", hostInput: "gateway" }, h.context("run-host-plan"));
    h.userInput.resolve((first.error as UserInputRequiredError).requestId, { outcome: "answered", values: {} });
    const second = await runNode(node, { prompt: "p", hostInput: "gateway" }, h.context("run-host-plan"));
    const answers = ofKind(second.items, "agent-answer");
    expect(answers.map((item) => item.id)).toEqual(["host-answer"]);
    expect(answers[0]!.content).toBe("Plan: write a file.\n\nWrote it.");
    expect(second.items.filter((item) => item.metadata.plan === true).map((item) => item.content)).toEqual(["Plan: write a file."]);
  });

  it("OUT-4 a declined plan without feedback ends the run with an ordinary notice", async () => {
    const h = harness();
    const { node } = offlineNode([{ text: "My plan." }], { h, mode: "plan" });
    const first = await runNode(node, { prompt: "p" }, h.context("run-decline"));
    h.userInput.resolve((first.error as UserInputRequiredError).requestId, { outcome: "declined" });
    const second = await runNode(node, { prompt: "p" }, h.context("run-decline"));
    expect(second.error).toBeUndefined();
    const notices = ofKind(second.items, "agent-notice");
    expect(notices.map((item) => [item.content, item.metadata.plan ?? false])).toEqual([["My plan.", true], ["Plan declined.", false]]);
  });

  it("OUT-4 no plan card in build mode or when a plan-mode run fails", async () => {
    const h = harness();
    const build = offlineNode([{ text: "Just an answer." }], { h });
    const built = await runNode(build.node, { prompt: "p" }, h.context("run-build"));
    expect(built.items.filter((item) => item.metadata.plan === true)).toHaveLength(0);
    let call = 0;
    const steps = [{ text: "Looking first.", toolCalls: [{ name: "ls", arguments: {} }] }, { error: { message: "boom", kind: "recovery" as const, retryable: false } }];
    const failing = offlineNode((() => steps[call++]!) as never, { h, mode: "plan", sessionKey: "f" });
    const failed = await runNode(failing.node, { prompt: "p" }, h.context("run-plan-fail"));
    expect(isSteamharnessError(failed.error, "model_error")).toBe(true);
    expect(failed.items.filter((item) => item.metadata.plan === true)).toHaveLength(0);
    expect(ofKind(failed.items, "agent-part", "text").map((item) => item.content)).toEqual(["Looking first."]);
  });

  it("SES-9 errors emit agent-error then throw; pause and cancel throw without it", async () => {
    const h = harness();
    const failing = offlineNode([{ error: { message: "bad request", kind: "recovery", status: 400, retryable: false } }], { h });
    const failed = await runNode(failing.node, { prompt: "p" }, h.context("run-err"));
    expect(isSteamharnessError(failed.error, "model_error")).toBe(true);
    const errors = ofKind(failed.items, "agent-error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.content).toContain("bad request");
    expect(kinds(failed.items).at(-1)).toBe("agent-error");
    expect(failed.items[0]!.content).toMatchObject({ status: "failed" });

    const paused = offlineNode([writeStep("p.txt")], { h, permissionPolicy: "ask", sessionKey: "p" });
    const pause = await runNode(paused.node, { prompt: "p" }, h.context("run-pause"));
    expect(isSteamharnessError(pause.error, "user_input_required")).toBe(true);
    expect(ofKind(pause.items, "agent-error")).toHaveLength(0);

    const controller = new AbortController();
    const stopper: AgentTool = {
      name: "stopper", label: "Stop", description: "Cancels the run", parameters: Type.Object({}),
      async execute() {
        controller.abort();
        return { content: [{ type: "text", text: "stopped" }] };
      },
    };
    const cancelling = offlineNode([{ toolCalls: [{ name: "stopper", arguments: {} }] }, { text: "never" }], { h, extraTools: [stopper], sessionKey: "c" });
    const cancelled = await runNode(cancelling.node, { prompt: "p" }, h.context("run-cancel", { signal: controller.signal, tools: [{ id: "stopper", autoApprove: true }] }));
    expect(isSteamharnessError(cancelled.error, "cancelled")).toBe(true);
    expect(ofKind(cancelled.items, "agent-error")).toHaveLength(0);
    expect(cancelling.model.calls).toHaveLength(1);
  });
});
