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
});
