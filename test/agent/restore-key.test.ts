import { restoreKey } from "../../src/app/agent/model-resolver.js";
import type { AgentModelSelection } from "../../src/domain/agent/model-selection.js";

describe("API keys of a resumed run (AG-4, CFG-2)", () => {
  const saved: AgentModelSelection = { source: "configured", entry: { id: "fast", provider: "openai", model: "gpt-x", apiKind: "openai-responses" } };

  it("AG-4 the key comes from the saved entry id, even when the current list would pick another entry first", () => {
    const current = [
      { id: "new-first", provider: "anthropic", model: "claude-x", apiKey: "sk-other" },
      { id: "fast", provider: "openai", model: "gpt-x", apiKey: "sk-fast" },
    ];
    expect(restoreKey(saved, current, undefined)).toEqual({ ...saved, entry: { ...saved.entry, apiKey: "sk-fast" } });
  });

  it("AG-4 no key is borrowed from another entry, and an explicit key wins for explicit endpoints", () => {
    expect(restoreKey(saved, [{ id: "other", provider: "openai", model: "gpt-x", apiKey: "sk-other" }], undefined)).toEqual(saved);
    expect(restoreKey(saved, null, undefined)).toEqual(saved);
    const explicit: AgentModelSelection = { source: "explicit", provider: "openai", model: "m", apiKind: "openai-responses", baseUrl: "http://127.0.0.1:1" };
    expect(restoreKey(explicit, null, "sk-explicit")).toEqual({ ...explicit, apiKey: "sk-explicit" });
  });
});
