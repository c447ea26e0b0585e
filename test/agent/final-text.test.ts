import { describe, expect, it } from "@jest/globals";
import { finalText } from "../../src/index.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { OutputItem } from "../../src/domain/output-items.js";
import { harness, offlineNode } from "./helpers.js";

const item = (id: string, content: string, metadata: OutputItem["metadata"]): OutputItem => ({ id, content, metadata, done: true });

describe("DX-4 finalText", () => {
  it("DX-4 finalText of a real run is what the agent said after its last tool call", async () => {
    const h = harness();
    const { node } = offlineNode(
      [
        { reasoning: "look first", text: "Reading a.txt.", toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
        { text: "a.txt is empty." },
      ],
      { h, permissionPolicy: "full" },
    );
    const { output } = await runStreamNode(node, { prompt: "what is in a.txt?" }, h.context("run-1"));
    expect(finalText(output)).toBe("a.txt is empty.");
    expect(finalText(output.items)).toBe("a.txt is empty.");
  });

  it("DX-4 finalText takes a host-driven answer whole, joins the last segments and is empty after a trailing tool call", () => {
    expect(finalText([item("a", "The answer.", { kind: "agent-answer" }), item("t", "ignored", { kind: "agent-part", partType: "text" })])).toBe("The answer.");
    const items = [
      item("1", "first", { kind: "agent-part", partType: "text" }),
      item("2", "", { kind: "agent-part", partType: "tool" }),
      item("3", "thinking", { kind: "agent-part", partType: "reasoning" }),
      item("4", "second", { kind: "agent-part", partType: "text" }),
      item("5", "1. plan", { kind: "agent-notice", plan: true }),
      item("6", "a notice", { kind: "agent-notice" }),
    ];
    expect(finalText({ items })).toBe("second\n\n1. plan");
    expect(finalText([...items, item("7", "", { kind: "agent-part", partType: "tool" })])).toBe("");
  });

  it("DX-4 OUT-9 patch and file rows are tool calls too: text before a write is not the final answer", async () => {
    const h = harness();
    const { node } = offlineNode(
      [
        { text: "Writing notes.md.", toolCalls: [{ name: "write", arguments: { path: "notes.md", content: "# Notes\n" } }] },
        { text: "Done." },
      ],
      { h, permissionPolicy: "full" },
    );
    const { output } = await runStreamNode(node, { prompt: "write the notes" }, h.context("run-1"));
    expect(output.items.some((entry) => entry.metadata.partType === "file")).toBe(true);
    expect(finalText(output)).toBe("Done.");
  });
});
