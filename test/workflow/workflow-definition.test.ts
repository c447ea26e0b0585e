import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { isUuid, parseWorkflowManifest, workflowServerName } from "../../src/domain/workflow/project-manifest.js";
import { normalizeRunReturn, statusOfResult } from "../../src/domain/workflow/run-report.js";
import { buildStructureReport, defineWorkflow } from "../../src/domain/workflow/workflow-definition.js";
import { entrypointInputSchema, toJsonSchema } from "../../src/domain/workflow/param-schema.js";

const ID = "11111111-1111-4111-8111-111111111111";
const manifest = { id: ID, projectType: "workflow" as const, main: "index.mjs" };

function codeOf(fn: () => unknown): { code: string; field?: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isSteamharnessError(error)) return { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) };
    throw error;
  }
  throw new Error("expected a throw");
}

describe("WF-1 workflow project manifest", () => {
  it("WF-1 accepts a workflow package.json with a UUID id and .js/.mjs/.ts main", () => {
    for (const main of ["index.js", "index.mjs", "src/index.ts"]) {
      expect(parseWorkflowManifest({ id: ID, projectType: "workflow", main, name: "x", version: "1.0.0" })).toEqual({
        id: ID,
        projectType: "workflow",
        main,
        name: "x",
        version: "1.0.0",
      });
    }
    expect(workflowServerName(ID)).toBe(`workflow-${ID}`);
  });

  it.each([
    ["a missing id", { projectType: "workflow", main: "a.js" }, "id", /has no "id"/],
    ["a non-UUID id", { id: "my-project", projectType: "workflow", main: "a.js" }, "id", /must be a UUID/],
    ["a conversation project", { id: ID, projectType: "conversation", main: "a.js" }, "projectType", /not a workflow project/],
    ["a kanban project", { id: ID, projectType: "kanban", main: "a.js" }, "projectType", /not a workflow project/],
    ["a plain folder package", { name: "plain" }, "projectType", /no projectType/],
    ["a missing main", { id: ID, projectType: "workflow" }, "main", /has no "main"/],
    ["a main of another kind", { id: ID, projectType: "workflow", main: "a.cjs" }, "main", /\.js, \.mjs or \.ts/],
    ["an absolute main", { id: ID, projectType: "workflow", main: "/etc/a.js" }, "main", /relative/],
  ])("WF-1 refuses %s", (_label, pkg, field, message) => {
    const error = codeOf(() => parseWorkflowManifest(pkg));
    expect(error.code).toBe("input_validation");
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it("isUuid checks the canonical form", () => {
    expect(isUuid(ID)).toBe(true);
    expect(isUuid(ID.replace(/-/g, ""))).toBe(false);
    expect(isUuid(42)).toBe(false);
  });
});

describe("WF-1 workflow definition and structure report", () => {
  const run = () => ({ ok: true });

  it("WF-1 builds the structure report (title defaults to the id, no code)", () => {
    const definition = defineWorkflow({
      entrypoints: {
        summarize: { title: "Summarize", description: "Sum", params: [{ name: "doc", type: "file", required: true }], run },
        bare: { run },
      },
    });
    expect(buildStructureReport({ ...manifest, name: "demo" }, definition)).toEqual({
      projectId: ID,
      projectType: "workflow",
      name: "demo",
      entrypoints: [
        { id: "summarize", title: "Summarize", description: "Sum", params: [{ name: "doc", type: "file", required: true }] },
        { id: "bare", title: "bare", description: "", params: [] },
      ],
    });
  });

  it.each([
    ["a default export that is not an object", undefined, /workflow definition object/],
    ["no entrypoints", {}, /no `entrypoints`/],
    ["zero entrypoints", { entrypoints: {} }, /no entrypoints/],
    ["an entrypoint without run", { entrypoints: { a: { title: "A" } } }, /no run/],
    ["an id that is not a tool name", { entrypoints: { "a b": { run } } }, /MCP tool names/],
    ["an unknown param type", { entrypoints: { a: { run, params: [{ name: "x", type: "date" }] } } }, /param #1 is invalid/],
    ["a param without a name", { entrypoints: { a: { run, params: [{ type: "string" }] } } }, /param #1 is invalid/],
    ["a duplicate param", { entrypoints: { a: { run, params: [{ name: "x", type: "string" }, { name: "x", type: "number" }] } } }, /declared twice/],
    ["checkboxes without options", { entrypoints: { a: { run, params: [{ name: "x", type: "checkboxes" }] } } }, /needs static options/],
    ["DX-2 a default of the wrong type", { entrypoints: { a: { run, params: [{ name: "days", type: "number", default: "3" }] } } }, /default of param "days" does not fit its type/],
    ["DX-2 a default outside the options", { entrypoints: { a: { run, params: [{ name: "s", type: "string", options: ["a", "b"], default: "c" }] } } }, /default of param "s" does not fit/],
    ["DX-2 a checkboxes default outside the options", { entrypoints: { a: { run, params: [{ name: "c", type: "checkboxes", options: ["a"], default: ["z"] }] } } }, /default of param "c" does not fit/],
    ["DX-2 a scalar default for a multiple param", { entrypoints: { a: { run, params: [{ name: "t", type: "string", multiple: true, default: "x" }] } } }, /default of param "t" does not fit/],
    ["MCP-17 a header on a number param", { entrypoints: { a: { run, params: [{ name: "n", type: "number", header: "N" }] } } }, /cannot declare a header/],
    ["MCP-17 a header on a multiple param", { entrypoints: { a: { run, params: [{ name: "t", type: "string", multiple: true, header: "T" }] } } }, /cannot declare a header/],
    ["MCP-17 a header that is not an HTTP token", { entrypoints: { a: { run, params: [{ name: "r", type: "string", header: "Region Name" }] } } }, /param #1 is invalid/],
    ["MCP-17 one header for two params (names ignore case)", { entrypoints: { a: { run, params: [{ name: "r", type: "string", header: "Region" }, { name: "s", type: "string", header: "region" }] } } }, /header "region" is declared twice/],
  ])("WF-1 refuses %s", (_label, definition, message) => {
    const error = codeOf(() => buildStructureReport(manifest, definition));
    expect(error.code).toBe("input_validation");
    expect(error.message).toMatch(message);
  });
});

describe("MCP-13 resumable entrypoints", () => {
  it("MCP-13 `resumable: true` is listed in the structure report; absent or false is not; anything else is refused", () => {
    const report = buildStructureReport(manifest, { entrypoints: { a: { resumable: true, run() {} }, b: { resumable: false, run() {} }, c: { run() {} } } });
    expect(report.entrypoints.map((entry) => entry.resumable)).toEqual([true, undefined, undefined]);
    expect("resumable" in report.entrypoints[1]!).toBe(false);
    expect(codeOf(() => buildStructureReport(manifest, { entrypoints: { a: { resumable: "yes", run() {} } } }))).toMatchObject({ code: "input_validation", field: "resumable", message: expect.stringContaining("resumable must be a boolean") });
  });
});

describe("MCP-20 task entrypoints", () => {
  it("MCP-20 `task: \"optional\" | \"required\"` is listed in the structure report; absent is not; anything else is refused", () => {
    const report = buildStructureReport(manifest, { entrypoints: { a: { task: "optional", run() {} }, b: { task: "required", run() {} }, c: { run() {} } } });
    expect(report.entrypoints.map((entry) => entry.task)).toEqual(["optional", "required", undefined]);
    expect("task" in report.entrypoints[2]!).toBe(false);
    expect(codeOf(() => buildStructureReport(manifest, { entrypoints: { a: { task: true, run() {} } } }))).toMatchObject({ code: "input_validation", field: "task", message: expect.stringContaining('task must be "optional" or "required"') });
  });
});

describe("MCP-3 MCP-7 inputSchema and outputText entrypoints", () => {
  it("MCP-7 `outputText: true` is listed in the structure report; absent or false is not; anything else is refused", () => {
    const report = buildStructureReport(manifest, { entrypoints: { a: { outputText: true, run() {} }, b: { outputText: false, run() {} } } });
    expect(report.entrypoints.map((entry) => entry.outputText)).toEqual([true, undefined]);
    expect("outputText" in report.entrypoints[1]!).toBe(false);
    expect(codeOf(() => buildStructureReport(manifest, { entrypoints: { a: { outputText: "yes", run() {} } } }))).toMatchObject({ code: "input_validation", field: "outputText", message: expect.stringContaining("outputText must be a boolean") });
  });

  it("MCP-3 a declared inputSchema is listed as a JSON copy, with no params; a schema that is not plain JSON, or carries x-mcp-header, is refused naming the entrypoint", () => {
    const inputSchema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { $ref: { type: "string" }, a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "integer" } } };
    const entry = buildStructureReport(manifest, { entrypoints: { a: { inputSchema, run() {} } } }).entrypoints[0]!;
    expect(entry).toMatchObject({ params: [], inputSchema });
    expect(entry.inputSchema).not.toBe(inputSchema);
    for (const [bad, why] of [
      [{ type: "object", properties: { a: { default: () => 1 } } }, "must be a JSON Schema object of plain JSON values"],
      [[{ type: "object" }], "must be a JSON Schema object of plain JSON values"],
      [{ type: "object", properties: { a: { type: "string", "x-mcp-header": "A" } } }, "x-mcp-header is declared with a param's header"],
    ] as const) {
      expect(codeOf(() => buildStructureReport(manifest, { entrypoints: { tool: { inputSchema: bad, run() {} } } }))).toMatchObject({ code: "input_validation", field: "inputSchema", message: expect.stringContaining(`entrypoint "tool": inputSchema ${why}`) });
    }
  });
});

describe("DX-2 typed definitions at run time", () => {
  it("DX-2 defineWorkflow returns the definition unchanged, and defaults that fit are accepted", () => {
    const definition = {
      entrypoints: {
        plan: {
          params: [
            { name: "days", type: "number", default: 3 },
            { name: "size", type: "string", options: ["s", { value: "m" }], default: "m" },
            { name: "tags", type: "checkboxes", options: ["a", "b"], default: ["b"] },
            { name: "due", type: "string", format: "date", default: "2026-12-01" },
          ],
          run: () => null,
        },
      },
    } as const;
    expect(defineWorkflow(definition)).toBe(definition);
    expect(buildStructureReport(manifest, definition).entrypoints[0]!.params.map((p) => p.default)).toEqual([3, "m", ["b"], "2026-12-01"]);
  });
});

describe("DX-2 params declared as a TypeBox object", () => {
  const run = () => null;

  it("WF-1 an integer param (listed or Type.Integer) is listed as integer and its default must be a whole number", () => {
    const typebox = buildStructureReport(manifest, { entrypoints: { a: { params: Type.Object({ n: Type.Integer({ default: 3 }), m: Type.Optional(Type.Array(Type.Integer())) }), run } } });
    expect(typebox.entrypoints[0]!.params).toEqual([{ name: "n", type: "integer", default: 3 }, { name: "m", type: "integer", multiple: true }]);
    const listed = buildStructureReport(manifest, { entrypoints: { a: { params: [{ name: "age", type: "integer", default: 30 }], run } } });
    expect(listed.entrypoints[0]!.params).toEqual([{ name: "age", type: "integer", default: 30 }]);
    const error = codeOf(() => buildStructureReport(manifest, { entrypoints: { a: { params: [{ name: "age", type: "integer", default: 2.5 }], run } } }));
    expect(error).toMatchObject({ code: "input_validation", message: expect.stringMatching(/default of param "age" does not fit its type \(Expected integer\)/) });
  });

  it("DX-2 each property becomes a listed param (kinds, options, checkboxes, optional, annotations, defaults)", () => {
    const params = Type.Object({
      name: Type.String({ title: "Name", description: "Who" }),
      due: Type.Optional(Type.String({ format: "date" })),
      tone: Type.Union([Type.Literal("warm"), Type.Literal("formal")], { default: "warm" }),
      only: Type.Literal("x"),
      days: Type.Optional(Type.Number({ default: 3 })),
      dry: Type.Boolean(),
      tags: Type.Optional(Type.Array(Type.String())),
      toppings: Type.Array(Type.Union([Type.Literal("cheese"), Type.Literal("olives")]), { uniqueItems: true }),
    });
    const report = buildStructureReport(manifest, defineWorkflow({ entrypoints: { greet: { params, run } } }));
    expect(report.entrypoints[0]!.params).toEqual([
      { name: "name", type: "string", required: true, title: "Name", description: "Who" },
      { name: "due", type: "string", format: "date" },
      { name: "tone", type: "string", options: ["warm", "formal"], default: "warm" },
      { name: "only", type: "string", options: ["x"], required: true },
      { name: "days", type: "number", default: 3 },
      { name: "dry", type: "boolean", required: true },
      { name: "tags", type: "string", multiple: true },
      { name: "toppings", type: "checkboxes", options: ["cheese", "olives"], required: true },
    ]);
    // The published schema is built from the listed params, as for any project.
    expect(toJsonSchema(entrypointInputSchema(report.entrypoints[0]!.params))).toMatchObject({ required: ["name", "only", "dry", "toppings"] });
  });

  it.each([
    ["a constraint a param cannot enforce", Type.Object({ n: Type.Number({ minimum: 1 }) }), /property "n": minimum cannot be declared/],
    ["a nested object", Type.Object({ o: Type.Object({}) }), /property "o": a Object schema cannot/],
    ["an unknown string format", Type.Object({ e: Type.String({ format: "email" }) }), /format "email" is not one of/],
    ["an array constraint", Type.Object({ t: Type.Array(Type.String(), { minItems: 1 }) }), /property "t": minItems cannot be declared/],
    ["a default that does not fit", Type.Object({ n: Type.Number({ default: "x" }) }), /default of param "n" does not fit/],
  ])("DX-2 refuses %s", (_label, params, message) => {
    const error = codeOf(() => buildStructureReport(manifest, { entrypoints: { a: { params, run } } }));
    expect(error.code).toBe("input_validation");
    expect(error.message).toMatch(message);
  });
});

describe("run results", () => {
  it.each([
    ["a plain output", { a: 1 }, { errCode: 0, errMessage: "", output: { a: 1 } }],
    ["undefined", undefined, { errCode: 0, errMessage: "", output: null }],
    ["a business result", { errCode: 0, errMessage: "", output: [1] }, { errCode: 0, errMessage: "", output: [1] }],
    ["a business failure", { errCode: 4, errMessage: "nope" }, { errCode: 4, errMessage: "nope", output: null }],
    ["a non-JSON output", { when: new Date(0) }, { errCode: -1, errMessage: "the run returned an output that is not JSON", output: null }],
    [
      "MCP-7 attachments, reduced to { fileId, mimeType }",
      { errCode: 0, errMessage: "", output: 1, attachments: [{ fileId: "f1", mimeType: "Image/PNG", name: "dropped" }] },
      { errCode: 0, errMessage: "", output: 1, attachments: [{ fileId: "f1", mimeType: "image/png" }] },
    ],
    ["MCP-7 no attachments", { errCode: 0, errMessage: "", output: 1, attachments: [] }, { errCode: 0, errMessage: "", output: 1 }],
    ...[[{ fileId: "f1" }], [{ fileId: "", mimeType: "text/plain" }], [{ fileId: "f1", mimeType: "text" }], "f1", [null]].map(
      (attachments) =>
        [
          `MCP-7 malformed attachments ${JSON.stringify(attachments)}`,
          { errCode: 0, errMessage: "", output: 1, attachments },
          { errCode: -1, errMessage: "the run returned attachments that are not a list of { fileId, mimeType } (a media type such as image/png)", output: null },
        ] as const,
    ),
  ])("normalizes %s", (_label, value, expected) => {
    expect(normalizeRunReturn(value)).toEqual(expected);
  });

  it("a non-zero errCode is a failure", () => {
    expect(statusOfResult({ errCode: 0, errMessage: "", output: null })).toBe("success");
    expect(statusOfResult({ errCode: 2, errMessage: "", output: null })).toBe("failed");
  });
});
