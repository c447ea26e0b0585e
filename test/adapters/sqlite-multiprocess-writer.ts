// Child process of sqlite-multiprocess.test.ts: opens the shared store directory, waits for "go"
// on stdin so both writers start together, then writes its share and reports on stdout.
import { createInterface } from "node:readline";
import { createSqliteStorage } from "../../src/adapters/sqlite/sqlite-storage.js";

const [directory, writer, entries, increments] = process.argv.slice(2);

async function main(): Promise<void> {
  const storage = createSqliteStorage({ directory });
  process.stdout.write("ready\n");
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once("line", () => resolve()));
  lines.close();
  const ns = { projectId: "shared" };
  const counterEvery = Math.max(1, Math.floor(Number(entries) / Number(increments)));
  let counted = 0;
  for (let i = 0; i < Number(entries); i++) {
    await storage.kv.set(ns, `${writer}/${String(i).padStart(5, "0")}`, { writer, i });
    if (i % counterEvery === 0 && counted < Number(increments)) {
      await storage.kv.update(ns, "counter", (current) => ((current as number | null) ?? 0) + 1);
      counted++;
    }
    if (i % 20 === 0) {
      await storage.knowledge.upsert("shared", { documentId: `${writer}-${i}`, title: `Doc ${i}`, markdown: `writer ${writer} shared corpus` });
    }
  }
  while (counted < Number(increments)) {
    await storage.kv.update(ns, "counter", (current) => ((current as number | null) ?? 0) + 1);
    counted++;
  }
  await storage.close();
  process.stdout.write(`done ${counted}\n`);
}

main().catch((error: unknown) => {
  const cause = (error as { cause?: { code?: string } }).cause;
  process.stdout.write(`error ${String(error)} cause=${cause?.code ?? "none"}\n`);
  process.exit(1);
});
