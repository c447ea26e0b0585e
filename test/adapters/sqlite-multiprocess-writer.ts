// Child process of sqlite-multiprocess.test.ts: opens the shared store directory, waits for "go"
// on stdin so both writers start together, then writes its share and reports on stdout.
import { createInterface } from "node:readline";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";

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
  // Equal contents share one content file; deletes racing with puts in the other process must
  // never remove bytes a remaining file still needs.
  const kept: Record<string, string> = {};
  for (let i = 0; i < 20; i++) {
    const text = i % 2 === 0 ? "shared bytes" : `${writer} bytes ${i}`;
    const file = await storage.files.put("shared", new TextEncoder().encode(text), { name: `f${i}` });
    if (i % 4 === 0) await storage.files.delete("shared", file.fileId);
    else kept[file.fileId] = text;
  }
  await storage.close();
  process.stdout.write(`files ${JSON.stringify(kept)}\n`);
  process.stdout.write(`done ${counted}\n`);
}

main().catch((error: unknown) => {
  const cause = (error as { cause?: { code?: string } }).cause;
  process.stdout.write(`error ${String(error)} cause=${cause?.code ?? "none"}\n`);
  process.exit(1);
});
