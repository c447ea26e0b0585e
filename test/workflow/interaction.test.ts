import { describe, expect, it } from "@jest/globals";
import { approvalForm, pickAnsweredValues, planInputElicitation, summarizeFields } from "../../src/domain/workflow/interaction.js";

describe("MCP-6 planning form elicitation", () => {
  it("MCP-6 builds a flat form for text, enum, date, number, boolean and multi-select with options", () => {
    const plan = planInputElicitation([
      { name: "note", type: "string", required: true, description: "Anything" },
      { name: "size", type: "string", options: ["s", "m"], default: "s" },
      { name: "due", type: "string", format: "date" },
      { name: "count", type: "number", default: 2 },
      { name: "sure", type: "boolean" },
      { name: "toppings", type: "string", multiple: true, options: ["ham", "olives"], default: ["ham"] },
    ]);
    expect(plan).toEqual({
      elicitable: true,
      requestedSchema: {
        type: "object",
        required: ["note"],
        properties: {
          note: { title: "note", description: "Anything", type: "string" },
          size: { title: "size", type: "string", enum: ["s", "m"], default: "s" },
          due: { title: "due", type: "string", format: "date" },
          count: { title: "count", type: "number", default: 2 },
          sure: { title: "sure", type: "boolean" },
          toppings: { title: "toppings", type: "array", items: { type: "string", enum: ["ham", "olives"] }, default: ["ham"] },
        },
      },
    });
  });

  it("MCP-6 an integer field is an integer form field with its default (SEP-1034)", () => {
    const plan = planInputElicitation([
      { name: "age", type: "integer", description: "User age", default: 30 },
      { name: "score", type: "number", default: 95.5 },
      { name: "half", type: "integer", default: 2.5 },
    ]);
    expect(plan).toEqual({
      elicitable: true,
      requestedSchema: {
        type: "object",
        properties: {
          age: { title: "age", description: "User age", type: "integer", default: 30 },
          score: { title: "score", type: "number", default: 95.5 },
          // A default that does not fit its field is not offered (the run would not get it either).
          half: { title: "half", type: "integer" },
        },
      },
    });
  });

  it("MCP-6 labelled options are titled choices: oneOf for one, items.anyOf for several, enumNames on request (SEP-1330)", () => {
    const sizes = [{ value: "s", label: "Small" }, "m"] as const;
    const plan = planInputElicitation([
      { name: "plain", type: "string", options: ["a", "b"] },
      { name: "titled", type: "string", options: [...sizes], default: "s" },
      { name: "legacy", type: "string", options: [...sizes], legacyEnumNames: true },
      { name: "plainMulti", type: "string", multiple: true, options: ["a", "b"] },
      { name: "titledMulti", type: "string", multiple: true, options: [...sizes], default: ["m"] },
      { name: "unlabelled", type: "string", options: [{ value: "x" }, "y"] },
    ]);
    expect(plan).toEqual({
      elicitable: true,
      requestedSchema: {
        type: "object",
        properties: {
          plain: { title: "plain", type: "string", enum: ["a", "b"] },
          titled: { title: "titled", type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "m", title: "m" }], default: "s" },
          legacy: { title: "legacy", type: "string", enum: ["s", "m"], enumNames: ["Small", "m"] },
          plainMulti: { title: "plainMulti", type: "array", items: { type: "string", enum: ["a", "b"] } },
          titledMulti: { title: "titledMulti", type: "array", items: { anyOf: [{ const: "s", title: "Small" }, { const: "m", title: "m" }] }, default: ["m"] },
          unlabelled: { title: "unlabelled", type: "string", enum: ["x", "y"] },
        },
      },
    });
    expect(summarizeFields([{ name: "titled", type: "string", options: [...sizes], required: true }])).toEqual(["titled (string, options: s|m, required)"]);
  });

  it("MCP-6 a file field cannot be asked by form", () => {
    const plan = planInputElicitation([{ name: "note", type: "string" }, { name: "contract", type: "file" }]);
    expect(plan).toEqual({ elicitable: false, reason: expect.stringContaining("contract is a file field") });
  });

  it("MCP-6 an array field without static options cannot be asked by form", () => {
    const plan = planInputElicitation([{ name: "tags", type: "string", multiple: true }]);
    expect(plan).toEqual({ elicitable: false, reason: expect.stringContaining("tags is an array without static options") });
  });

  it("MCP-6 approvals are an explicit approve/deny choice with no default", () => {
    const form = approvalForm("send_mail", { to: "a@b.c" });
    expect(form.message).toContain("send_mail");
    expect(form.requestedSchema).toEqual({
      type: "object",
      required: ["decision"],
      properties: { decision: { type: "string", title: "Decision", enum: ["approve", "deny"], description: expect.any(String) } },
    });
    expect(JSON.stringify(form.requestedSchema)).not.toContain('"default"');
  });

  it("summarizes pending fields and keeps only requested answers", () => {
    expect(summarizeFields([{ name: "tags", type: "string", multiple: true, options: ["a", "b"], required: true }])).toEqual([
      "tags (string, multiple, options: a|b, required)",
    ]);
    expect(pickAnsweredValues([{ name: "note", type: "string" }], { note: "hi", other: 1 })).toEqual({ note: "hi" });
  });
});
