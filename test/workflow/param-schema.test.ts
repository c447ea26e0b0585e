import { describe, expect, it } from "@jest/globals";
import { validateArguments } from "../../src/domain/workflow/argument-validation.js";
import { entrypointInputSchema, FILE_PARAM_HINT, paramSchema, toJsonSchema } from "../../src/domain/workflow/param-schema.js";
import type { WorkflowParam } from "../../src/domain/workflow/workflow-definition.js";

const FILE_DESCRIPTION = `The ${FILE_PARAM_HINT}`;

// MCP-3: every param kind and every carried-over property, with the exact JSON Schema it maps to.
const TABLE: Array<[string, WorkflowParam, Record<string, unknown>]> = [
  ["string", { name: "p", type: "string" }, { type: "string" }],
  ["positional", { name: "p", type: "positional" }, { type: "string" }],
  ["number", { name: "p", type: "number" }, { type: "number" }],
  ["integer", { name: "p", type: "integer" }, { type: "integer" }],
  ["multiple integer", { name: "p", type: "integer", multiple: true }, { type: "array", items: { type: "integer" } }],
  ["boolean", { name: "p", type: "boolean" }, { type: "boolean" }],
  ["multiple string", { name: "p", type: "string", multiple: true }, { type: "array", items: { type: "string" } }],
  ["multiple number", { name: "p", type: "number", multiple: true }, { type: "array", items: { type: "number" } }],
  [
    "checkboxes",
    { name: "p", type: "checkboxes", options: ["red", "green"] },
    { type: "array", uniqueItems: true, items: { type: "string", enum: ["red", "green"] } },
  ],
  ["file", { name: "p", type: "file" }, { type: "string", minLength: 1, description: FILE_DESCRIPTION }],
  [
    "multiple file",
    { name: "p", type: "file", multiple: true },
    { type: "array", description: FILE_DESCRIPTION, items: { type: "string", minLength: 1 } },
  ],
  ["file with description", { name: "p", type: "file", description: "The doc" }, { type: "string", minLength: 1, description: `The doc (${FILE_PARAM_HINT})` }],
  ["default", { name: "p", type: "number", default: 3 }, { type: "number", default: 3 }],
  ["description", { name: "p", type: "string", description: "Who" }, { type: "string", description: "Who" }],
  ["title", { name: "p", type: "string", title: "Name" }, { type: "string", title: "Name" }],
  ["static options", { name: "p", type: "string", options: ["short", "long"] }, { type: "string", enum: ["short", "long"] }],
  [
    "labelled options",
    { name: "p", type: "string", options: [{ value: "s", label: "Short" }, "l"] },
    { type: "string", enum: ["s", "l"] },
  ],
  [
    "options with default",
    { name: "p", type: "string", options: ["short", "long"], default: "short" },
    { type: "string", enum: ["short", "long"], default: "short" },
  ],
  ["multiple with options", { name: "p", type: "string", multiple: true, options: ["x", "y"] }, { type: "array", items: { type: "string", enum: ["x", "y"] } }],
  ["date format", { name: "p", type: "string", format: "date" }, { type: "string", format: "date" }],
  ["date-time format", { name: "p", type: "string", format: "date-time" }, { type: "string", format: "date-time" }],
  ["time format", { name: "p", type: "positional", format: "time" }, { type: "string", format: "time" }],
  ["MCP-17 a header mirror (x-mcp-header)", { name: "p", type: "string", header: "Region" }, { type: "string", "x-mcp-header": "Region" }],
];

describe("MCP-3 entrypoint params → JSON Schema", () => {
  it.each(TABLE)("MCP-3 maps %s", (_label, param, expected) => {
    expect(toJsonSchema(paramSchema(param))).toEqual(expected);
  });

  it("MCP-3 object schema: required list and additionalProperties false", () => {
    const schema = toJsonSchema(
      entrypointInputSchema([
        { name: "document", type: "file", required: true },
        { name: "style", type: "string", required: false },
        { name: "count", type: "number", required: true, default: 2 },
      ]),
    );
    expect(schema).toEqual({
      type: "object",
      additionalProperties: false,
      required: ["document", "count"],
      properties: {
        document: { type: "string", minLength: 1, description: FILE_DESCRIPTION },
        style: { type: "string" },
        count: { type: "number", default: 2 },
      },
    });
  });

  it("MCP-3 an entrypoint without params accepts only an empty object", () => {
    const schema = entrypointInputSchema([]);
    expect(toJsonSchema(schema)).toEqual({ type: "object", additionalProperties: false, properties: {} });
    expect(validateArguments(schema, {})).toEqual([]);
    expect(validateArguments(schema, { x: 1 })).toEqual(["arguments.x: unknown property (allowed: none)"]);
  });
});

describe("argument validation against the published schema", () => {
  const schema = entrypointInputSchema([
    { name: "text", type: "string", required: true },
    { name: "mode", type: "string", options: ["a", "b"] },
    { name: "count", type: "number" },
    { name: "due", type: "string", format: "date" },
    { name: "at", type: "string", format: "date-time" },
    { name: "colors", type: "checkboxes", options: ["red", "green"] },
    { name: "age", type: "integer" },
  ]);

  it("accepts valid arguments", () => {
    expect(validateArguments(schema, { text: "x", mode: "b", count: 2, due: "2026-02-28", at: "2026-02-28T10:00:00Z", colors: ["red"], age: 30 })).toEqual([]);
  });

  it.each([
    ["a missing required property", {}, "arguments.text: required property is missing"],
    ["a wrong type", { text: 1 }, "arguments.text: Expected string"],
    ["an extra property", { text: "x", extra: true }, "arguments.extra: unknown property (allowed: text, mode, count, due, at, colors, age)"],
    ["MCP-3 a fraction for an integer param", { text: "x", age: 30.5 }, "arguments.age: Expected integer"],
    ["a value outside the options", { text: "x", mode: "c" }, 'arguments.mode: must be one of "a", "b"'],
    ["a malformed date", { text: "x", due: "2026-13-01" }, "arguments.due: Expected string to match 'date' format"],
    ["a malformed date-time", { text: "x", at: "yesterday" }, "arguments.at: Expected string to match 'date-time' format"],
    ["a duplicate checkbox", { text: "x", colors: ["red", "red"] }, "arguments.colors: Expected array elements to be unique"],
    ["a checkbox outside the options", { text: "x", colors: ["blue"] }, 'arguments.colors.0: must be one of "red", "green"'],
  ])("refuses %s", (_label, args, problem) => {
    expect(validateArguments(schema, args)).toContain(problem);
  });

  it("refuses a non-object", () => {
    expect(validateArguments(schema, [1])).not.toEqual([]);
    expect(validateArguments(schema, null)).not.toEqual([]);
  });
});
