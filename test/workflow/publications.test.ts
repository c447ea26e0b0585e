// WF-1 / MCP-15: the prompts, resources and resource templates of a workflow definition,
// checked at load (TypeBox and the path rules) into the structure report, and printed by
// `steamharness structure`; plus the text rules the MCP server applies to them.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { completeFromOptions, fillPlaceholders, matchUriTemplate, uriTemplateProblem } from "../../src/domain/workflow/publication-text.js";
import { buildStructureReport, defineWorkflow } from "../../src/domain/workflow/workflow-definition.js";
import { cleanup, REPO, runCli, tempDir, writeProject } from "../cli/helpers.js";

jest.setTimeout(60_000);

const CONFORMANCE = join(REPO, "test/mcp-http/fixtures/conformance");
const manifest = { id: "11111111-1111-4111-8111-111111111111", projectType: "workflow" as const, main: "index.mjs" };
const entrypoints = { ping: { run: () => "pong" } };
const text = (value: string) => ({ role: "user" as const, content: { type: "text" as const, text: value } });

function refusal(definition: object): { field?: string; message: string } {
  try {
    buildStructureReport(manifest, { entrypoints, ...definition });
  } catch (error) {
    if (isSteamharnessError(error, "input_validation")) return { message: error.message, ...(error.field ? { field: error.field } : {}) };
    throw error;
  }
  throw new Error("expected input_validation");
}

describe("WF-1 publications in the structure report", () => {
  it("WF-1 a definition without prompts or resources has a structure report without those keys", () => {
    expect(Object.keys(buildStructureReport(manifest, { entrypoints }))).toEqual(["projectId", "projectType", "entrypoints"]);
  });

  it("WF-1 lists prompts (title and description filled in), resources and resource templates", () => {
    const definition = defineWorkflow({
      entrypoints,
      prompts: { hi: { arguments: [{ name: "who", required: true, options: ["Ada"] }], messages: [text("Hi {who}")] } },
      resources: [{ uri: "docs://a", name: "a", file: "docs/a.md" }],
      resourceTemplates: [{ uriTemplate: "docs://day/{day}", name: "day", text: "Day {day}", options: { day: ["mon"] } }],
    });
    const report = buildStructureReport(manifest, definition);
    expect(report.prompts).toEqual([{ name: "hi", title: "hi", description: "", arguments: [{ name: "who", required: true, options: ["Ada"] }], messages: [text("Hi {who}")] }]);
    expect(report.resources).toEqual([{ uri: "docs://a", name: "a", file: "docs/a.md" }]);
    expect(report.resourceTemplates).toEqual([{ uriTemplate: "docs://day/{day}", name: "day", text: "Day {day}", options: { day: ["mon"] } }]);
  });

  it.each([
    ["a file path with ..", { resources: [{ uri: "docs://a", name: "a", file: "../secret.txt" }] }, "resources[0].file", /inside the project folder/],
    ["an absolute file path", { resources: [{ uri: "docs://a", name: "a", file: "/etc/passwd" }] }, "resources[0].file", /not an absolute path/],
    ["a .env file", { resources: [{ uri: "docs://a", name: "a", file: "config/.env" }] }, "resources[0].file", /secrets/],
    ["an image path with ..", { prompts: { p: { messages: [{ role: "user", content: { type: "image", file: "a/../../x.png" } }] } } }, "prompts.p.messages[0].content.file", /inside the project folder/],
    ["two content sources", { resources: [{ uri: "docs://a", name: "a", text: "x", file: "a.txt" }] }, "resources[0]", /exactly one of text, blob/],
    ["no content", { resources: [{ uri: "docs://a", name: "a" }] }, "resources[0]", /exactly one of/],
    ["a blob that is not Base64", { resources: [{ uri: "docs://a", name: "a", blob: "not base64!" }] }, "resources[0].blob", /is not Base64/],
    ["a URI without a scheme", { resources: [{ uri: "just-a-name", name: "a", text: "x" }] }, "resources[0].uri", /not a URI with a scheme/],
    ["a duplicate URI", { resources: [{ uri: "docs://a", name: "a", text: "x" }, { uri: "docs://a", name: "b", text: "y" }] }, "resources[1].uri", /declared twice/],
    ["a bad MIME type", { resources: [{ uri: "docs://a", name: "a", text: "x", mimeType: "text" }] }, "resources[0].mimeType", /not a MIME type/],
    ["a bad image MIME type", { prompts: { p: { messages: [{ role: "user", content: { type: "image", file: "a.png", mimeType: "png" } }] } } }, "prompts.p.messages[0].content.mimeType", /not a MIME type/],
    ["an unknown property", { resources: [{ uri: "docs://a", name: "a", text: "x", path: "y" }] }, "resources[0].path", /Unexpected property/],
    ["a level-2 URI template", { resourceTemplates: [{ uriTemplate: "docs://{+path}", name: "t", text: "x" }] }, "resourceTemplates[0].uriTemplate", /level 1/],
    ["options for no variable", { resourceTemplates: [{ uriTemplate: "docs://{id}", name: "t", text: "x", options: { other: ["a"] } }] }, "resourceTemplates[0].options.other", /no variable/],
    ["a prompt without messages", { prompts: { p: { messages: [] } } }, "prompts.p.messages", /at least 1|minItems|greater or equal/i],
    ["a message role", { prompts: { p: { messages: [{ role: "system", content: { type: "text", text: "x" } }] } } }, "prompts.p.messages[0].role", /"user", "assistant"/],
    ["a duplicate argument", { prompts: { p: { arguments: [{ name: "a" }, { name: "a" }], messages: [text("x")] } } }, "prompts.p.arguments[1].name", /declared twice/],
    ["an embedded URI that is no resource", { prompts: { p: { messages: [{ role: "user", content: { type: "resource", uri: "docs://none" } }] } } }, "prompts.p.messages[0].content.uri", /none of the project's resources/],
    ["prompts as an array", { prompts: [] }, "prompts", /object of prompt declarations/],
    ["MCP-19 an asked field named like an argument", { prompts: { p: { arguments: [{ name: "a" }], ask: { message: "?", fields: [{ name: "a" }] }, messages: [text("x")] } } }, "prompts.p.ask.fields[0].name", /already an argument/],
    ["MCP-19 an ask without fields", { prompts: { p: { ask: { message: "?", fields: [] }, messages: [text("x")] } } }, "prompts.p.ask.fields", /at least 1|minItems|greater or equal/i],
  ])("WF-1 a bad declaration is a typed error naming its path: %s", (_name, definition, field, message) => {
    const refused = refusal(definition);
    expect(refused.field).toBe(field);
    expect(refused.message).toMatch(message);
    expect(refused.message).toContain(field);
  });
});

describe("MCP-15 the text rules of prompts and templates", () => {
  it("MCP-15 fills declared placeholders only, matches level-1 templates and completes by prefix", () => {
    expect(fillPlaceholders("{a} {b} {{a}} {c d}", { a: "1", b: "$&" })).toBe("1 $& {1} {c d}");
    expect(matchUriTemplate("x://t/{id}/data", "x://t/1%2F2/data")).toEqual({ id: "1/2" });
    expect(matchUriTemplate("x://t/{id}/data", "x://t/%E0%A4%A/data")).toBeNull();
    expect(matchUriTemplate("x://t/{id}", "x://t/")).toBeNull();
    expect(matchUriTemplate("x://t", "x://t")).toEqual({});
    expect(matchUriTemplate("x://t", "x://t/more")).toBeNull();
    expect(matchUriTemplate("x://{a}.{b}.json", "x://one.two.three.json")).toEqual({ a: "one", b: "two.three" });
    // No backtracking: a long hostile URI against a template of many variables answers at once.
    const hostile = `x://${"a.".repeat(50_000)}!`;
    expect(matchUriTemplate("x://{a}.{b}.{c}.{d}.{e}", hostile)).toBeNull();
    expect(uriTemplateProblem("x://{a}{b}")).toMatch(/side by side/);
    expect(uriTemplateProblem("x://{a}/{a}")).toMatch(/twice/);
    expect(completeFromOptions(["Paris", "park", "rome"], "PAR")).toEqual({ values: ["Paris", "park"], total: 2, hasMore: false });
    expect(completeFromOptions(undefined, "")).toEqual({ values: [], total: 0, hasMore: false });
  });
});

describe("WF-1 steamharness structure prints the publications", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await tempDir("sh-structure-publications-");
  });
  afterAll(async () => {
    await cleanup(tmp);
  });

  it("WF-1 prints prompts, resources and resource templates; JSON carries them whole", async () => {
    const result = await runCli(["structure", CONFORMANCE]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Prompts:\n  test_simple_prompt — test_simple_prompt: A simple prompt without arguments");
    expect(result.stdout).toContain("    - arg1: required [test, testing, tested, paris, park] — First test argument");
    expect(result.stdout).toContain("  test://static-binary — static-binary (image/png), file assets/red-pixel.png — A binary resource read from a project file");
    expect(result.stdout).toContain("Resource templates:\n  test://template/{id}/data — template-data (application/json) — Data for an id, by substitution");
    const json = JSON.parse((await runCli(["structure", CONFORMANCE, "--json"])).stdout) as { prompts: unknown[]; resources: unknown[] };
    expect(json.prompts).toHaveLength(5);
    // MCP-19: a prompt's ask travels whole (the MCP host serves prompts from this report).
    expect(json.prompts).toContainEqual(expect.objectContaining({ name: "test_input_required_result_prompt", ask: { message: "What context should the prompt use?", fields: [{ name: "context", required: true }] } }));
    expect(json.resources).toHaveLength(4);
  });

  it("WF-1 a project whose declaration escapes the folder does not load: exit 2, the path named", async () => {
    const dir = await writeProject(join(tmp, "escape"), {
      "package.json": JSON.stringify({ type: "module", id: "22222222-2222-4222-8222-222222222222", projectType: "workflow", main: "index.mjs" }),
      "index.mjs": `export default { entrypoints: { ping: { run: () => 1 } }, resources: [{ uri: "docs://x", name: "x", file: "../../etc/passwd" }] };`,
    });
    const result = await runCli(["structure", dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/resources\[0\]\.file: must stay inside the project folder/);
  });
});
