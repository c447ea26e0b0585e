import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createAgent } from "../../src/app/agent/create-agent.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { harness, offlineNode, runNode } from "./helpers.js";

describe("SEC-3 grep's deadline is an agent option", () => {
  it("SEC-3 grepTimeoutMs on the agent reaches its grep tool: a catastrophic regex is stopped at that deadline", async () => {
    const h = harness();
    writeFileSync(path.join(h.workdir, "evil.txt"), `${"a".repeat(28)}b\n`);
    const { model, node } = offlineNode([{ toolCalls: [{ id: "g1", name: "grep", arguments: { pattern: "^(a+)+$" } }] }, { text: "done" }], { h, permissionPolicy: "read-only", grepTimeoutMs: 700 });
    const result = await runNode(node, { prompt: "search" }, h.context("run-grep"));
    expect(result.error).toBeUndefined();
    const toolResult = model.calls[1]!.messages.find((message) => message.role === "toolResult");
    expect(JSON.stringify(toolResult)).toContain("ran past 700 ms");
  }, 60_000);

  it("SEC-3 a grepTimeoutMs that is not an integer ≥ 0 is refused when the agent is created", () => {
    let caught: unknown;
    try {
      createAgent({ grepTimeoutMs: -5 });
    } catch (error) {
      caught = error;
    }
    expect(isSteamharnessError(caught) && caught.code === "input_validation" && caught.message).toContain("grepTimeoutMs");
  });
});
