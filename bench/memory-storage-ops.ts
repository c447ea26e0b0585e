/**
 * CPU per operation of `new MemoryStorage()`'s stores (ARCH-8, stop 50: knowledge, values and the
 * budget ledger are SQLite's in memory, the KV store stays in maps): a fresh storage, a store's
 * first use (the in-memory database opened then) and warm operations. Not part of `npm run bench`
 * (no results file); run it on two trees to compare:
 *   node --import tsx bench/memory-storage-ops.ts
 */
import { MemoryStorage } from "../src/compose/memory-storage.js";

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Prints the CPU µs of one call of `step`, over `n` calls after a warm-up of 50. */
async function measure(label: string, n: number, step: (i: number) => unknown): Promise<void> {
  for (let i = 0; i < 50; i++) await step(i);
  const start = cpuMs();
  for (let i = 0; i < n; i++) await step(i);
  console.log(`${label}: ${(((cpuMs() - start) * 1000) / n).toFixed(1)} µs CPU`);
}

const ns = { projectId: "p" };
const limits = [{ scope: "run" as const, id: "run-1", tokens: 1e12 }];
await measure("new MemoryStorage()", 2000, () => new MemoryStorage());
await measure("fresh storage, kv.set", 2000, (i) => new MemoryStorage().kv.set(ns, "k", i));
await measure("fresh storage, values.set + get", 1000, async (i) => {
  const storage = new MemoryStorage();
  await storage.values.set("p", "v", i);
  await storage.values.get("p", "v");
});
await measure("fresh storage, knowledge upsert + search", 500, async (i) => {
  const storage = new MemoryStorage();
  await storage.knowledge.upsert("p", { documentId: "d", title: "T", markdown: `some words here ${i}` });
  await storage.knowledge.search("p", "words");
});
await measure("fresh storage, budget reserve + settle", 500, async () => {
  const storage = new MemoryStorage();
  await storage.budgets.reserve({ reservationId: "r", limits, amount: { tokens: 10, costMicros: 0 }, at: 1 });
  await storage.budgets.settle("r", { tokens: 5, costMicros: 0 });
});
const warm = new MemoryStorage();
let reservation = 0;
await measure("warm kv.set + get", 5000, async (i) => {
  await warm.kv.set(ns, `k${i % 50}`, i);
  await warm.kv.get(ns, `k${i % 50}`);
});
await measure("warm values.set + get", 5000, async (i) => {
  await warm.values.set("p", `v${i % 50}`, i);
  await warm.values.get("p", `v${i % 50}`);
});
await measure("warm knowledge upsert (200 documents)", 3000, (i) => warm.knowledge.upsert("p", { documentId: `d${i % 200}`, title: "T", markdown: `some words here and there ${i}` }));
await measure("warm knowledge search (200 matches)", 2000, () => warm.knowledge.search("p", "words"));
await measure("warm budget reserve + settle", 3000, async () => {
  const id = `r${reservation++}`;
  await warm.budgets.reserve({ reservationId: id, limits, amount: { tokens: 10, costMicros: 0 }, at: 1 });
  await warm.budgets.settle(id, { tokens: 5, costMicros: 0 });
});
