import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { appendFile, mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { checkFileArgument, checkFileParams, type FileArgumentOptions } from "../../src/adapters/driven/worker-process/file-params.js";
import { importFileParams, readFileParam } from "../../src/adapters/driven/worker-process/file-import.js";
import { defaultFileRoots, fileParamPolicy, resolveFileRoots, type FileParamPolicy } from "../../src/adapters/driven/worker-process/file-roots.js";

// SEC-5: an MCP client chooses file paths; only real files inside the allowed roots are imported.

const PROJECT_ID = "0f6a3c2e-9d41-4b7a-8c55-1e2d3f4a5b6c";
let dir: string;
let policy: FileParamPolicy;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "sh-file-roots-")));
  await mkdir(join(dir, "project"));
  await mkdir(join(dir, "outside"));
  await writeFile(join(dir, "project", "report.md"), "# Report\n");
  await writeFile(join(dir, "project", ".env"), "API_KEY=not-for-clients\n");
  await writeFile(join(dir, "outside", "secret.txt"), "outside secret\n");
  await symlink(join(dir, "project", "report.md"), join(dir, "project", "alias.md"));
  await symlink(join(dir, "outside", "secret.txt"), join(dir, "project", "to-outside.txt"));
  await symlink("/proc/self/environ", join(dir, "project", "environ"));
  policy = await fileParamPolicy([join(dir, "project")], join(dir, "project"), [join(dir, "auth")]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function refusal(value: string, options: FileArgumentOptions = {}): Promise<{ message: string; reason: unknown }> {
  try {
    await checkFileArgument("doc", value, options);
  } catch (error) {
    if (isSteamharnessError(error, "input_validation")) return { message: error.message, reason: error.data?.reason };
    throw error;
  }
  throw new Error(`${value} was accepted`);
}

describe("SEC-5 pseudo files and allowed roots", () => {
  it.each([
    ["/proc/self/environ", /arguments\.doc is on the \/proc pseudo file system/],
    ["/proc/self/pagemap", /is on the \/proc pseudo file system/],
    ["/sys/kernel/mm/transparent_hugepage/enabled", /is on the \/sys pseudo file system/],
  ])("SEC-5 refuses %s (stat size says nothing about what a read returns)", async (path, message) => {
    const { message: text, reason } = await refusal(path);
    expect(text).toMatch(message);
    expect(reason).toBe("pseudo_file");
  });

  it("SEC-5 refuses a symlink into /proc by its real path", async () => {
    const { message } = await refusal(join(dir, "project", "environ"), { policy });
    expect(message).toMatch(/is on the \/proc pseudo file system \(through a symbolic link\)/);
    expect(message).not.toContain("API_KEY");
  });

  it("SEC-5 refuses a file outside the roots, directly and through a symlink inside a root", async () => {
    const direct = await refusal(join(dir, "outside", "secret.txt"), { policy });
    expect(direct).toEqual({ message: expect.stringMatching(/is outside the allowed file roots/), reason: "outside_roots" });
    const linked = await refusal(join(dir, "project", "to-outside.txt"), { policy });
    expect(linked.message).toContain("resolves to a file that is outside the allowed file roots");
    expect(linked.message).not.toContain(dir);
    expect(linked.message).not.toContain("outside secret");
    expect((await refusal("/etc/passwd", { policy })).reason).toBe("outside_roots");
  });

  it("SEC-5 accepts a file inside a root, and records a symlink under the link's own name", async () => {
    await expect(checkFileArgument("doc", join(dir, "project", "alias.md"), { policy })).resolves.toMatchObject({ path: join(dir, "project", "report.md"), name: "alias.md" });
  });

  it("SEC-5 never imports the server's own credential files (.env of the project), even inside a root", async () => {
    expect((await refusal(join(dir, "project", ".env"), { policy })).reason).toBe("denied");
  });

  it("SEC-5 the roots bind client arguments; a param's default (the project's own path) is not bound, every other check is", async () => {
    const params = [{ name: "template", type: "file" as const, default: join(dir, "outside", "secret.txt") }];
    await expect(checkFileParams(params, {}, { policy })).resolves.toMatchObject({ files: { template: { name: "secret.txt" } } });
    await expect(checkFileParams(params, { template: join(dir, "outside", "secret.txt") }, { policy })).rejects.toThrow(/outside the allowed file roots/);
    await expect(checkFileParams([{ name: "t", type: "file", default: "/proc/self/environ" }], {}, { policy })).rejects.toThrow(/pseudo file system/);
  });
});

describe("SEC-5 default roots and --allow-file-root", () => {
  it.each([
    ["the project and the working dir", "/srv/p", "/home/me/work", ["/srv/p", "/home/me/work"]],
    ["only the project when the working dir is /", "/srv/p", "/", ["/srv/p"]],
    ["only the project when the working dir is the home dir", "/srv/p", "/home/me", ["/srv/p"]],
    ["only the project when the working dir is above the home dir", "/srv/p", "/home", ["/srv/p"]],
    ["only the project when the working dir is inside it", "/srv/p", "/srv/p/sub", ["/srv/p"]],
  ])("SEC-5 default roots: %s", (_label, project, cwd, roots) => {
    expect(defaultFileRoots(project, cwd, "/home/me")).toEqual(roots);
  });

  it("SEC-5 --allow-file-root values replace the defaults, as real paths; bad values name the flag", async () => {
    await symlink(join(dir, "outside"), join(dir, "outside-link"));
    await expect(resolveFileRoots([join(dir, "outside-link"), join(dir, "outside")], join(dir, "project"))).resolves.toEqual([join(dir, "outside")]);
    await expect(resolveFileRoots(["relative/dir"], dir)).rejects.toThrow(/--allow-file-root "relative\/dir" must be an absolute directory path/);
    await expect(resolveFileRoots([join(dir, "missing")], dir)).rejects.toThrow(/does not exist/);
    await expect(resolveFileRoots([join(dir, "project", "report.md")], dir)).rejects.toThrow(/is not a directory/);
  });
});

describe("SEC-5 the worker's copy", () => {
  it("SEC-5 the copy counts bytes: a file grown past the cap after its check is refused and nothing is stored", async () => {
    const path = join(dir, "project", "growing.bin");
    await writeFile(path, "small");
    const source = await checkFileArgument("doc", path, { policy, maxBytes: 1024 });
    await appendFile(path, Buffer.alloc(4096, 1));
    const issued: string[] = [];
    const storage = new MemoryStorage({ idSource: { next: (prefix = "") => (issued.push(`${prefix}${issued.length}`), issued.at(-1)!) } });
    const first = await checkFileArgument("doc", join(dir, "project", "report.md"), { policy });
    const error = await importFileParams(storage, PROJECT_ID, { a: first, b: [source] }, 1024).catch((e: unknown) => e);
    expect(isSteamharnessError(error, "input_validation")).toBe(true);
    expect((error as Error).message).toMatch(/arguments\.b\[0\] holds more than 1024 bytes/);
    // All or nothing: the first file, stored before the second failed, is gone again.
    expect(issued.filter((id) => id.startsWith("file_"))).toHaveLength(1);
    for (const id of issued) expect(await storage.files.get(PROJECT_ID, id)).toBeNull();
  });

  it("SEC-5 the copy stops at the cap on a file whose stat size is 0 (/proc/self/pagemap) instead of reading it all", async () => {
    const storage = new MemoryStorage({ maxFileBytes: 1024 * 1024 });
    const error = await storage.files.importFile(PROJECT_ID, "/proc/self/pagemap").catch((e: unknown) => e);
    expect(isSteamharnessError(error, "input_validation")).toBe(true);
    const { size } = (error as { data: { size: number } }).data;
    expect(size).toBeGreaterThan(1024 * 1024);
    expect(size).toBeLessThanOrEqual(1024 * 1024 + 4096);
  });

  it("SEC-5 a file whose parent folder was swapped for a link after the check is refused", async () => {
    await mkdir(join(dir, "project", "docs"));
    await writeFile(join(dir, "project", "docs", "secret.txt"), "inside");
    const source = await checkFileArgument("doc", join(dir, "project", "docs", "secret.txt"), { policy });
    await rename(join(dir, "project", "docs"), join(dir, "project", "docs-old"));
    await symlink(join(dir, "outside"), join(dir, "project", "docs"));
    await expect(readFileParam("doc", source)).rejects.toThrow(/arguments\.doc was moved or replaced after it was checked/);
  });

  it("SEC-5 a checked file replaced by a symlink is not followed", async () => {
    const path = join(dir, "project", "swapped.txt");
    await writeFile(path, "inside");
    const source = await checkFileArgument("doc", path, { policy });
    await rm(path);
    await symlink(join(dir, "outside", "secret.txt"), path);
    await expect(readFileParam("doc", source)).rejects.toThrow(/changed after it was checked and cannot be opened \(ELOOP\)/);
  });
});
