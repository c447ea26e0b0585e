import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { harness, kinds, offlineNode, ofKind, runNode } from "./helpers.js";

describe("agent node basics", () => {
  it("AG-1 runs a turn with a coding tool and folds the payload", async () => {
    const h = harness();
    const { node, model } = offlineNode(
      [
        { text: "Let me look.", toolCalls: [{ name: "ls", arguments: { path: "." } }] },
        { text: "The folder is empty." },
      ],
      { h },
    );
    const result = await runNode(node, { prompt: "What is here?" }, h.context("run-basic"));
    expect(result.error).toBeUndefined();
    expect(kinds(result.items)).toEqual(["agent-session", "ring", "agent-part:text", "agent-part:tool", "agent-part:text"]);
    expect(result.output).toMatchObject({ errCode: 0, errMessage: "", prompt: "What is here?", workdir: h.workdir, provider: "offline", model: "offline-scripted", effort: "medium", agent: "build", toolCallCount: 1 });
    expect(model.calls).toHaveLength(2);
    const tool = ofKind(result.items, "agent-part", "tool")[0]!;
    expect(tool.content).toMatchObject({ tool: "ls", status: "completed", result: "(empty directory)" });
  });

  it("AG-1 the payload reports what the turn actually used (per-turn overrides)", async () => {
    const h = harness();
    const other = mkdtempSync(path.join(tmpdir(), "agent-other-"));
    const { node, model } = offlineNode([{ text: "ok" }], { h, effort: "low" });
    const result = await runNode(node, { prompt: "p", workdir: other, effort: "high" }, h.context("run-overrides"));
    expect(result.output).toMatchObject({ workdir: other, effort: "high", agent: "build" });
    expect(model.calls[0]!.effort).toBe("high");
  });

  it("AG-3 maxSteps bounds the model requests of one run", async () => {
    const h = harness();
    const loop = { toolCalls: [{ name: "ls", arguments: {} }] };
    const { node, model } = offlineNode([loop, loop, loop, loop], { h, maxSteps: 3 });
    const result = await runNode(node, { prompt: "p" }, h.context("run-steps"));
    expect((result.error as { code?: string }).code).toBe("model_error");
    expect(model.calls).toHaveLength(3);
  });
});
