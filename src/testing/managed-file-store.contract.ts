import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ManagedFileStore } from "../ports/managed-file-store.js";
import {
  defineContract,
  errorCode,
  uniqueId,
  type ContractCases,
  type ContractFactory,
  type ContractOptions,
  type ContractTestApi,
} from "./contract-support.js";

/** Raw reads of a managed-file backend that bypass the adapter under test. */
export interface ManagedFileStoreInspect {
  /** How many files the backend holds for `projectId` (metadata rows or objects). */
  count(projectId: string): Promise<number>;
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** Runs `fn` with a fresh temporary directory, removed afterwards. */
async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "steamharness-files-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const cases: ContractCases<ManagedFileStore, ManagedFileStoreInspect> = {
  "importFile copies the bytes and records name, size and sha256": async ({ store, inspect, expect }) => {
    await withTempDir(async (dir) => {
      const p = uniqueId("p");
      const bytes = new TextEncoder().encode("hello managed file 世界\n");
      const source = join(dir, "notes.txt");
      await writeFile(source, bytes);
      const file = await store.importFile(p, source);
      expect(file).toEqual(expect.objectContaining({ name: "notes.txt", size: bytes.length, sha256: sha256(bytes) }));
      expect(typeof file.fileId).toBe("string");
      expect(await store.get(p, file.fileId)).toEqual(file);
      await writeFile(source, "changed later");
      expect(Buffer.from((await store.read(p, file.fileId))!)).toEqual(Buffer.from(bytes));
      const renamed = await store.importFile(p, source, { name: "renamed.md" });
      expect(renamed.name).toBe("renamed.md");
      expect(renamed.fileId).not.toBe(file.fileId);
      if (inspect) expect(await inspect.count(p)).toBe(2);
    });
  },

  "put stores bytes under a new id": async ({ store, expect }) => {
    const p = uniqueId("p");
    const bytes = new Uint8Array([0, 1, 2, 255, 254]);
    const file = await store.put(p, bytes, { name: "blob.bin" });
    bytes[0] = 9;
    expect(file).toEqual(expect.objectContaining({ name: "blob.bin", size: 5, sha256: sha256(new Uint8Array([0, 1, 2, 255, 254])) }));
    expect([...(await store.read(p, file.fileId))!]).toEqual([0, 1, 2, 255, 254]);
    const empty = await store.put(p, new Uint8Array(), { name: "empty" });
    expect(empty.size).toBe(0);
    expect((await store.read(p, empty.fileId))!.length).toBe(0);
  },

  "absent files read null and delete reports whether one existed": async ({ store, expect }) => {
    const p = uniqueId("p");
    expect(await store.get(p, "missing")).toBeNull();
    expect(await store.read(p, "missing")).toBeNull();
    expect(await store.delete(p, "missing")).toBe(false);
    const file = await store.put(p, new Uint8Array([1]), { name: "one" });
    expect(await store.delete(p, file.fileId)).toBe(true);
    expect(await store.get(p, file.fileId)).toBeNull();
    expect(await store.read(p, file.fileId)).toBeNull();
    expect(await store.delete(p, file.fileId)).toBe(false);
  },

  "projects are isolated": async ({ store, expect }) => {
    const a = uniqueId("p");
    const b = uniqueId("p");
    const file = await store.put(a, new Uint8Array([7]), { name: "seven" });
    expect(await store.get(b, file.fileId)).toBeNull();
    expect(await store.read(b, file.fileId)).toBeNull();
    expect(await store.delete(b, file.fileId)).toBe(false);
    expect(await store.get(a, file.fileId)).not.toBeNull();
  },

  "identical contents stay independent": async ({ store, expect }) => {
    const p = uniqueId("p");
    const bytes = new TextEncoder().encode("same content");
    const first = await store.put(p, bytes, { name: "a" });
    const second = await store.put(p, bytes, { name: "b" });
    expect(second.fileId).not.toBe(first.fileId);
    expect(second.sha256).toBe(first.sha256);
    await store.delete(p, first.fileId);
    expect(new TextDecoder().decode((await store.read(p, second.fileId))!)).toBe("same content");
  },

  "files over maxBytes are refused and nothing is stored": async ({ store, inspect, expect }) => {
    await withTempDir(async (dir) => {
      const p = uniqueId("p");
      const exact = join(dir, "exact.bin");
      const over = join(dir, "over.bin");
      await writeFile(exact, new Uint8Array(store.maxBytes));
      await writeFile(over, new Uint8Array(store.maxBytes + 1));
      expect(await errorCode(() => store.importFile(p, over))).toBe("input_validation");
      expect(await errorCode(() => store.put(p, new Uint8Array(store.maxBytes + 1), { name: "x" }))).toBe("input_validation");
      if (inspect) expect(await inspect.count(p)).toBe(0);
      const file = await store.importFile(p, exact);
      expect(file.size).toBe(store.maxBytes);
      if (inspect) expect(await inspect.count(p)).toBe(1);
    });
  },

  "relative paths, directories and missing files are refused": async ({ store, inspect, expect }) => {
    await withTempDir(async (dir) => {
      const p = uniqueId("p");
      await writeFile(join(dir, "a.txt"), "a");
      expect(await errorCode(() => store.importFile(p, "a.txt"))).toBe("input_validation");
      expect(await errorCode(() => store.importFile(p, "./relative/a.txt"))).toBe("input_validation");
      expect(await errorCode(() => store.importFile(p, dir))).toBe("input_validation");
      expect(await errorCode(() => store.importFile(p, join(dir, "missing.txt")))).toBe("not_found");
      expect(await errorCode(() => store.importFile("", join(dir, "a.txt")))).toBe("input_validation");
      expect(await errorCode(() => store.put(p, "text" as unknown as Uint8Array, { name: "x" }))).toBe("input_validation");
      expect(await errorCode(() => store.put(p, new Uint8Array(1), { name: "" }))).toBe("input_validation");
      if (inspect) expect(await inspect.count(p)).toBe(0);
    });
  },
};

/** Case names of {@link runManagedFileStoreContract}, usable in `options.skip`. */
export const MANAGED_FILE_STORE_CONTRACT_CASES: readonly string[] = Object.keys(cases);

/**
 * The managed-file port contract: import and put round trips with sha256, copies independent of
 * the source, project isolation, the size limit (`maxBytes` accepted, `maxBytes + 1` refused —
 * configure the store under test with a small `maxBytes`, the suite writes files that large),
 * path checks and `not_found`.
 *
 * @example
 * runManagedFileStoreContract({ describe, it, expect }, () => ({ store: new MemoryStorage({ maxFileBytes: 4096 }).files }));
 */
export function runManagedFileStoreContract(
  api: ContractTestApi,
  factory: ContractFactory<ManagedFileStore, ManagedFileStoreInspect>,
  options: ContractOptions = {},
): void {
  defineContract(api, "ManagedFileStore", factory, cases, options);
}
