import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// PERF-1 bundles TypeBox into dist/ (its ESM build is hundreds of files), so a consumer's own
// `@sinclair/typebox` and ours are two copies. TypeBox marks schemas with `Symbol.for` kinds, so
// each copy reads the other's schemas. Checked on the built files, as a consumer gets them: the
// script below imports the real @sinclair/typebox package (the user's copy) and the built
// steamharness (run `npm run build` first; CI does).

const SCRIPT = `
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type, TypeRegistry } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { createAgentNode, createNodeContext, entrypointInputSchema, runStreamNode } from "steamharness";
import { MemoryStorage, createMemoryToolPermissions, createMemoryUserInput } from "steamharness/memory";
import { createOfflineModel } from "steamharness/testing";

const report = {};
// 1. A tool whose schema the user built with their TypeBox: the agent validates its arguments
//    with steamharness' bundled TypeBox before running it.
const ran = [];
const double = {
  name: "double",
  label: "double",
  description: "Doubles n",
  parameters: Type.Object({ n: Type.Number() }),
  async execute(_id, params) {
    ran.push(params.n);
    return { content: [{ type: "text", text: String(params.n * 2) }] };
  },
};
const workdir = mkdtempSync(join(tmpdir(), "typebox-interop-"));
try {
  const model = createOfflineModel({ steps: [
    { toolCalls: [{ id: "bad", name: "double", arguments: { n: "two" } }] },
    { toolCalls: [{ id: "good", name: "double", arguments: { n: 2 } }] },
    { text: "done" },
  ] });
  const node = createAgentNode({ models: model, workdir, retryDelayMs: 0, extraTools: [double] });
  const context = createNodeContext({ projectId: "p", storage: new MemoryStorage(), runId: "r", toolPermissions: createMemoryToolPermissions(), userInput: createMemoryUserInput(), toolCatalog: [{ id: "double", autoApprove: true }] });
  await runStreamNode(node, { prompt: "go" }, context);
  const answer = (id) => model.calls.flatMap((call) => call.messages).find((m) => m.role === "toolResult" && m.toolCallId === id)?.content[0]?.text;
  report.ran = ran;
  report.bad = answer("bad");
  report.good = answer("good");
} finally {
  rmSync(workdir, { recursive: true, force: true });
}
// 2. A schema steamharness built (with its bundled TypeBox) checked by the user's Value.Check.
const schema = entrypointInputSchema([{ name: "count", type: "number", required: true }, { name: "label", type: "string" }, { name: "loud", type: "boolean" }]);
report.accepts = Value.Check(schema, { count: 1, label: "a", loud: true });
report.rejects = Value.Check(schema, { count: "1" });
report.firstError = [...Value.Errors(schema, { count: "1" })][0]?.path;
// 3. steamharness' own string-enum kind (a param with options) lives in its bundled registry only.
const withOptions = entrypointInputSchema([{ name: "size", type: "string", options: ["s", "m"] }]);
try {
  report.enumWithoutRegistration = Value.Check(withOptions, { size: "s" });
} catch (error) {
  report.enumWithoutRegistration = error.constructor.name;
}
TypeRegistry.Set("SteamharnessStringEnum", (kind, value) => typeof value === "string" && kind.enum.includes(value));
report.enumRegistered = [Value.Check(withOptions, { size: "s" }), Value.Check(withOptions, { size: "xl" })];
console.log(JSON.stringify(report));
`;

describe("PERF-1 TypeBox bundled into dist works with a consumer's own TypeBox", () => {
  beforeAll(() => {
    if (!existsSync("dist/index.js") || !existsSync("dist/testing.js")) throw new Error("dist/ is missing: run `npm run build` before the tests (CI does)");
  });

  it("PERF-1: a user's TypeBox schema is validated by steamharness, and steamharness' schemas by the user's Value.Check", () => {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", SCRIPT], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    const report = JSON.parse(result.stdout.trim()) as Record<string, unknown>;
    expect(report).toEqual({
      // The invalid call never reached the tool: the bundled TypeBox understood the user's schema.
      ran: [2],
      bad: expect.stringContaining("invalid arguments for double at /n"),
      good: "4",
      accepts: true,
      rejects: false,
      firstError: "/count",
      // Kinds registered at runtime (TypeRegistry) are per copy: a user who checks a schema with a
      // string enum under their own TypeBox registers the kind, as any custom TypeBox kind needs.
      enumWithoutRegistration: "ValueCheckUnknownTypeError",
      enumRegistered: [true, false],
    });
  });
});
