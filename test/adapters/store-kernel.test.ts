import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createSequentialIdSource } from "../../src/adapters/driven/memory/sequential-id-source.js";
import { createKvStore, type KvRow, type KvRows } from "../../src/adapters/driven/kernel/kv-store.js";
import { memoryStorePorts } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { directCall } from "../../src/adapters/driven/kernel/store-call.js";
import { compareUtf16 } from "../../src/domain/store-input.js";
import { runKvStoreContract } from "../../src/testing/kv-store.contract.js";
import { runManagedFileStoreContract } from "../../src/testing/managed-file-store.contract.js";

const STORAGE_FAMILIES = ["memory", "sqlite", "postgres"];
const KERNEL = "src/adapters/driven/kernel";
/**
 * Machine helpers a storage family may still use beside the kernel, named one by one: the system
 * clock and random ids (the defaults of every factory), the file intake and SHA-256 (node:fs,
 * node:crypto, which the pure kernel takes as a parameter) and the lookup of the checked-in
 * migrations folders (node:fs).
 */
const SHARED_ADAPTERS = ["src/adapters/driven/system/"];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Every import specifier of a file (static, dynamic, re-exports, side effects), relative ones resolved to a source path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/g)) {
    const spec = match[1] ?? match[2]!;
    found.push(spec.startsWith(".") ? relative(".", resolve(dirname(file), spec.replace(/\.js$/, ".ts"))) : spec);
  }
  return found;
}

describe("ARCH-3 one store implementation per port over small row drivers", () => {
  it("ARCH-3 no storage family imports another family; the store kernel imports only the domain, the ports and itself", () => {
    const offenders: string[] = [];
    for (const family of STORAGE_FAMILIES) {
      const own = `src/adapters/driven/${family}/`;
      for (const file of filesUnder(own)) {
        for (const target of importsOf(file)) {
          if (!target.startsWith("src/")) continue;
          const allowed = [own, `${KERNEL}/`, "src/domain/", "src/ports/", ...SHARED_ADAPTERS].some((prefix) => target.startsWith(prefix));
          if (!allowed) offenders.push(`${file} → ${target}`);
        }
      }
    }
    for (const file of filesUnder(KERNEL)) {
      for (const target of importsOf(file)) {
        if (![`${KERNEL}/`, "src/domain/", "src/ports/"].some((prefix) => target.startsWith(prefix))) offenders.push(`${file} → ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("ARCH-3 the import check sees what it must refuse", () => {
    // The violations of f1f6d79, as they were written there.
    const sample = 'import { sortKey } from "../sqlite/store/sqlite-support.js";\nimport { checkMaxBytes } from "../memory/memory-managed-file-store.js";\nimport "node:fs";';
    const specs = [...sample.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/g)].map((m) => m[1]);
    expect(specs).toEqual(["../sqlite/store/sqlite-support.js", "../memory/memory-managed-file-store.js", "node:fs"]);
  });

  describe("ARCH-3 a new backend is only rows: the kernel's ports pass their contract suites over minimal row drivers", () => {
    const api = { describe, it, expect };

    /** KV rows over one Map, sorting on every listing: nothing of the port's rules is here. */
    const mapKvRows = (): KvRows => {
      const rows = new Map<string, KvRow>();
      const id = (ns: { projectId: string; conversationId?: string }, key: string) => JSON.stringify([ns.projectId, ns.conversationId ?? null, key]);
      const self: KvRows = {
        read: (ns, key) => rows.get(id(ns, key)),
        write: (ns, key, value) => void rows.set(id(ns, key), { key, value, updatedAt: Date.now() }),
        remove: (ns, key) => rows.delete(id(ns, key)),
        list: (ns, { prefix, after, limit }) =>
          [...rows.entries()]
            .filter(([rowId, row]) => rowId.startsWith(JSON.stringify([ns.projectId, ns.conversationId ?? null]).slice(0, -1)) && row.key.startsWith(prefix) && (after === undefined || compareUtf16(row.key, after) > 0))
            .map(([, row]) => row)
            .sort((a, b) => compareUtf16(a.key, b.key))
            .slice(0, limit),
        modify(ns, key, change) {
          const next = change(rows.get(id(ns, key))?.value ?? null);
          if (next === null) self.remove(ns, key);
          else self.write(ns, key, next);
        },
      };
      return self;
    };
    runKvStoreContract(api, () => ({ store: createKvStore(mapKvRows(), directCall) }));

    // The managed-file port is the kernel's on the SQL row driver with the bytes kept apart (memory: a map by SHA-256).
    runManagedFileStoreContract(api, () => ({ store: memoryStorePorts({ clock: createFixedClock(1), idSource: createSequentialIdSource("k-"), maxBytes: 64 * 1024 }).files }));
  });
});
