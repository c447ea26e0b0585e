import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { HOST_BRIDGE_TOKEN_ENV, HOST_BRIDGE_URL_ENV, resolveHostBridge } from "../../src/domain/capabilities/host-bridge.js";
import { decodeOffsetCursor, encodeOffsetCursor, readRange } from "../../src/domain/capabilities/paging.js";
import { capabilitySpecOf } from "../../src/domain/capabilities/registry.js";
import { StringEnum, capabilityParameters } from "../../src/domain/capabilities/schema.js";
import { assertMaxCodePoints, codePointLength } from "../../src/domain/capabilities/text-limits.js";
import { listProjectCapabilityToolIds } from "../../src/app/capabilities/project-capabilities.js";
import type { Page } from "../../src/ports/page.js";

describe("capability domain helpers", () => {
  it("CAP-4 codePointLength counts astral characters once and lone surrogates once", () => {
    expect(codePointLength("")).toBe(0);
    expect(codePointLength("a中😀𝒳")).toBe(4);
    expect("a中😀𝒳".length).toBe(6);
    expect(codePointLength("\ud83d")).toBe(1);
    expect(codePointLength("\ude00\ud83d")).toBe(2);
    expect(codePointLength("x\ud83d")).toBe(2);
    expect(() => assertMaxCodePoints("f", "😀".repeat(3), 3)).not.toThrow();
    expect(() => assertMaxCodePoints("f", "😀".repeat(4), 3)).toThrow(/longer than 3 characters \(code points\): got 4/);
  });

  it("CAP-1 published parameters: action required, other fields optional, keys ordered type/properties/required, enums plain", () => {
    const schema = capabilityParameters({ action: StringEnum(["a", "b"] as const), n: Type.Integer() });
    expect(Object.keys(schema)).toEqual(["type", "properties", "required", "additionalProperties"]);
    expect(JSON.parse(JSON.stringify(schema))).toEqual({
      type: "object",
      properties: { action: { type: "string", enum: ["a", "b"] }, n: { type: "integer" } },
      required: ["action"],
      additionalProperties: false,
    });
    expect(Value.Check(schema, { action: "a" })).toBe(true);
    expect(Value.Check(schema, { action: "c" })).toBe(false);
    expect(Value.Check(schema, { action: "a", x: 1 })).toBe(false);
  });

  it("CAP-7 readRange walks a keyset listing by offset, across store pages", async () => {
    const all = Array.from({ length: 1234 }, (_, i) => i);
    const calls: Array<[string | null, number]> = [];
    const fetchPage = async (cursor: string | null, limit: number): Promise<Page<number>> => {
      calls.push([cursor, limit]);
      const start = cursor === null ? 0 : Number(cursor);
      const items = all.slice(start, start + limit);
      return { items, nextCursor: start + limit < all.length ? String(start + limit) : null };
    };
    expect(await readRange(fetchPage, 0, 3)).toEqual({ items: [0, 1, 2], nextOffset: 3 });
    expect(await readRange(fetchPage, 1000, 100)).toEqual({ items: all.slice(1000, 1100), nextOffset: 1100 });
    expect(await readRange(fetchPage, 1200, 100)).toEqual({ items: all.slice(1200), nextOffset: null });
    expect(await readRange(fetchPage, 1231, 3)).toEqual({ items: [1231, 1232, 1233], nextOffset: null });
    expect(await readRange(fetchPage, 5000, 3)).toEqual({ items: [], nextOffset: null });
    expect(calls.every(([, limit]) => limit <= 500)).toBe(true);
  });

  it("CAP-7 offset cursors round-trip and are bound to their listing", () => {
    const cursor = encodeOffsetCursor("kv\u0000p", 40);
    expect(decodeOffsetCursor("kv\u0000p", cursor)).toBe(40);
    expect(decodeOffsetCursor("kv\u0000p", undefined)).toBe(0);
    expect(() => decodeOffsetCursor("kv\u0000q", cursor)).toThrow(/does not belong/);
    expect(() => decodeOffsetCursor("kv\u0000p", "40")).toThrow(/malformed/);
  });

  it("CAP-8 resolveHostBridge accepts ports 1 and 65535 and a trailing slash, normalising the URL", () => {
    const env = (url: string) => ({ [HOST_BRIDGE_URL_ENV]: url, [HOST_BRIDGE_TOKEN_ENV]: "t" });
    expect(resolveHostBridge(env("http://127.0.0.1"))).toEqual({ ok: true, config: { url: "http://127.0.0.1", token: "t" } });
    expect(resolveHostBridge(env("http://127.0.0.1:1/"))).toEqual({ ok: true, config: { url: "http://127.0.0.1:1", token: "t" } });
    expect(resolveHostBridge(env("http://127.0.0.1:65535")).ok).toBe(true);
    expect(resolveHostBridge(env("http://127.0.0.1:65536")).ok).toBe(false);
  });

  it("CAP-2 listProjectCapabilityToolIds lists this turn's ids; specs resolve by id; unknown ids throw", () => {
    expect(listProjectCapabilityToolIds({ env: {} })).toEqual([IDS.knowledge, IDS.kv, IDS.presentCard]);
    expect(listProjectCapabilityToolIds({ globalMemory: true, env: {} })).toEqual([IDS.knowledge, IDS.kv, IDS.memory, IDS.presentCard]);
    const env = { [HOST_BRIDGE_URL_ENV]: "http://127.0.0.1:9", [HOST_BRIDGE_TOKEN_ENV]: "t" };
    expect(listProjectCapabilityToolIds({ env })).toEqual([IDS.knowledge, IDS.kv, IDS.presentCard, IDS.hostConfiguration]);
    expect(capabilitySpecOf(IDS.presentCard).address).toEqual({ toolId: IDS.presentCard, serviceId: "workflow-ui", toolName: "present_card" });
    expect(() => capabilitySpecOf("workflow-kv")).toThrow(/unknown capability tool id/);
  });

  it("CAP-4 an own __proto__ key cannot smuggle fields in by inheritance", async () => {
    const spec = capabilitySpecOf(IDS.kv);
    const smuggled = JSON.parse('{"__proto__": {"action": "set", "key": "tokenUsage.total", "value": 0}}');
    expect(() => spec.validate(smuggled)).toThrow(/unknown field __proto__/);
    const nested = JSON.parse('{"action": "get", "key": "a", "__proto__": {"scope": "conversation"}}');
    expect(() => spec.validate(nested)).toThrow(/__proto__/);
  });
});
