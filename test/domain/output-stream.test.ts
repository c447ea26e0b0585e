import fc from "fast-check";
import { createOutputItemChunk, createOutputStreamAccumulator, outputChunk } from "../../src/domain/output-stream.js";
import type { OutputItem, OutputItemStreamChunk } from "../../src/domain/output-items.js";
import type { JsonValue } from "../../src/domain/json.js";

type Op =
  | { t: "delta"; s: string }
  | { t: "replace"; c: JsonValue; m?: { tag: string } }
  | { t: "readd"; m: { tag: string } }
  | { t: "done" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant("delta" as const), s: fc.string({ maxLength: 6 }) }),
  fc.record({ t: fc.constant("replace" as const), c: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), m: fc.option(fc.record({ tag: fc.string() }), { nil: undefined }) }),
  fc.record({ t: fc.constant("readd" as const), m: fc.record({ tag: fc.string() }) }),
  fc.record({ t: fc.constant("done" as const) }),
);

const itemArb = fc.record({ initial: fc.string({ maxLength: 4 }), ops: fc.array(opArb, { maxLength: 12 }) });

function chunksOf(id: string, spec: { initial: string; ops: Op[] }): OutputItemStreamChunk[] {
  const chunks = [createOutputItemChunk({ id, content: spec.initial, metadata: { kind: "agent-part" } })];
  for (const op of spec.ops) {
    if (op.t === "delta") chunks.push(outputChunk.delta(id, op.s));
    else if (op.t === "replace") chunks.push(outputChunk.replace(id, op.c, op.m));
    else if (op.t === "readd") chunks.push({ type: "add", item: { id, metadata: op.m } });
    else chunks.push(outputChunk.done(id));
  }
  return chunks;
}

/** Reference model: what one item's own chunk list must produce, computed without the accumulator. */
function expectedItem(id: string, spec: { initial: string; ops: Op[] }): OutputItem {
  const doneAt = spec.ops.findIndex((op) => op.t === "done");
  const live = doneAt === -1 ? spec.ops : spec.ops.slice(0, doneAt);
  let base: JsonValue = spec.initial;
  let tail = "";
  let metadata: Record<string, unknown> = { kind: "agent-part" };
  for (const op of live) {
    if (op.t === "replace") { base = op.c; tail = ""; if (op.m) metadata = op.m; }
    else if (op.t === "delta") { if (typeof base !== "string") { base = ""; } tail += op.s; }
    else if (op.t === "readd") metadata = op.m;
  }
  const content = typeof base === "string" ? base + tail : base;
  return { id, content, metadata: metadata as OutputItem["metadata"], done: doneAt !== -1 };
}

describe("output stream accumulator (WF-0, OUT-1)", () => {
  it("WF-0 any interleaving of add/delta/replace/done gives the same items in first-seen order", () => {
    fc.assert(
      fc.property(fc.array(itemArb, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 80 }), (specs, picks) => {
        const queues = specs.map((spec, i) => chunksOf(`item-${i}`, spec));
        const interleaved: OutputItemStreamChunk[] = [];
        const firstSeen: number[] = [];
        let p = 0;
        while (queues.some((q) => q.length > 0)) {
          const open = queues.map((q, i) => (q.length > 0 ? i : -1)).filter((i) => i >= 0);
          const pick = open[(picks[p++] ?? 0) % open.length];
          if (!firstSeen.includes(pick)) firstSeen.push(pick);
          interleaved.push(queues[pick].shift()!);
        }
        const acc = createOutputStreamAccumulator();
        acc.pushAll(interleaved);
        const expected = firstSeen.map((i) => expectedItem(`item-${i}`, specs[i]));
        expect(acc.items()).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("WF-0 chunks for an unknown id create the item where they first appear; items() returns copies", () => {
    const acc = createOutputStreamAccumulator();
    acc.push(outputChunk.delta("b", "x"));
    acc.push(createOutputItemChunk({ id: "a", content: { n: 1 } }));
    const items = acc.items();
    expect(items.map((item) => item.id)).toEqual(["b", "a"]);
    (items[1].content as { n: number }).n = 2;
    expect(acc.get("a")?.content).toEqual({ n: 1 });
    expect(acc.get("missing")).toBeUndefined();
  });
});
