import { describe, expect, it } from "@jest/globals";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { AGENT_SESSION_COMMAND_TYPES, parseAgentSessionCommand } from "../../src/domain/session-host/commands.js";
import { compactTranscript } from "../../src/domain/session-host/compaction.js";
import { nextHostStatus, nextRunnableTask, nextTaskStatus, type AgentSessionTaskRecord } from "../../src/domain/session-host/host-state.js";
import type { ModelMessage } from "../../src/ports/model-provider.js";

const task = (order: number, status: AgentSessionTaskRecord["status"], cancelRequested = false): AgentSessionTaskRecord => ({
  taskId: `t${order}`, runId: `run-t${order}`, targetId: 0, prompt: "p", input: {}, status, cancelRequested, detail: null, order,
});

describe("session host domain", () => {
  it("HOST-1 the command set is typed and validated; unknown types and bad fields fail with input_validation", () => {
    expect(AGENT_SESSION_COMMAND_TYPES).toEqual(["submit", "cancel", "compact", "reset", "fork", "continue", "steer", "select"]);
    expect(parseAgentSessionCommand({ type: "submit", prompt: "hi", mode: "reject" })).toEqual({ type: "submit", prompt: "hi", mode: "reject" });
    const cases: Array<[unknown, string]> = [
      [{ type: "explode" }, "type"],
      [null, "type"],
      [{ type: "submit", prompt: "" }, "prompt"],
      [{ type: "submit", prompt: "x", mode: "later" }, "mode"],
      [{ type: "fork", targetId: -1 }, "targetId"],
      [{ type: "steer", prompt: "" }, "prompt"],
      [{ type: "cancel", extra: 1 }, "extra"],
    ];
    for (const [value, field] of cases) {
      let caught: unknown;
      try {
        parseAgentSessionCommand(value);
      } catch (error) {
        caught = error;
      }
      expect(isSteamharnessError(caught, "input_validation")).toBe(true);
      expect((caught as { field?: string }).field).toBe(field);
    }
  });

  it("HOST-2 HOST-5 host and task state machines refuse invalid moves; cancelled is final", () => {
    expect(nextHostStatus("open", "suspend")).toBe("suspending");
    expect(() => nextHostStatus("closed", "suspend")).toThrow(expect.objectContaining({ code: "invalid_transition" }));
    expect(nextTaskStatus("running", "start")).toBe("running");
    expect(() => nextTaskStatus("cancelled", "start")).toThrow(expect.objectContaining({ code: "invalid_transition" }));
    expect(() => nextTaskStatus("completed", "cancel")).toThrow(expect.objectContaining({ code: "invalid_transition" }));
  });

  it("HOST-3 an interrupted running task runs first; a waiting task holds the queue; cancel intents are skipped", () => {
    expect(nextRunnableTask([task(1, "completed"), task(2, "queued"), task(3, "running")])?.taskId).toBe("t3");
    expect(nextRunnableTask([task(1, "waiting"), task(2, "queued")])).toBeNull();
    expect(nextRunnableTask([task(1, "running", true), task(2, "queued")])?.taskId).toBe("t2");
    expect(nextRunnableTask([])).toBeNull();
  });

  it("SES-7 compaction keeps a tail that starts at an input boundary and folds the rest into a summary", () => {
    const messages: ModelMessage[] = [
      { role: "user", content: "one" },
      { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: {} }] },
      { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "data" }], isError: false },
      { role: "assistant", content: [{ type: "text", text: "answer one" }] },
      { role: "user", content: "two" },
      { role: "assistant", content: [{ type: "text", text: "answer two" }] },
    ];
    const compacted = compactTranscript(messages, 3)!;
    expect(compacted.messages.map((message) => message.role)).toEqual(["user", "user", "assistant"]);
    expect(String(compacted.messages[0]!.content)).toContain("answer one");
    expect(compactTranscript(messages, 100)).toBeNull();
  });
});
