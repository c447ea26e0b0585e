import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { checkFileArgument, checkFileParams, FILE_PARAM_MAX_BYTES } from "../../src/adapters/driven/worker-process/file-params.js";

let dir: string;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "sh-file-params-")));
  await writeFile(join(dir, "ok.txt"), "hello");
  await mkdir(join(dir, "folder"));
  execFileSync("mkfifo", [join(dir, "pipe")]);
  await writeFile(join(dir, "max.bin"), "");
  await truncate(join(dir, "max.bin"), FILE_PARAM_MAX_BYTES); // sparse: no 50 MB written
  await writeFile(join(dir, "over.bin"), "");
  await truncate(join(dir, "over.bin"), FILE_PARAM_MAX_BYTES + 1);
  await symlink(join(dir, "ok.txt"), join(dir, "link-to-file"));
  await symlink(join(dir, "folder"), join(dir, "link-to-folder"));
  await symlink(join(dir, "pipe"), join(dir, "link-to-pipe"));
  await symlink(join(dir, "missing"), join(dir, "dangling"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function refusal(value: string): Promise<string> {
  try {
    await checkFileArgument("doc", value);
  } catch (error) {
    if (isSteamharnessError(error, "input_validation")) return error.message;
    throw error;
  }
  throw new Error(`${value} was accepted`);
}

describe("MCP-4 file params", () => {
  it("MCP-4 accepts an absolute path of a regular file", async () => {
    await expect(checkFileArgument("doc", join(dir, "ok.txt"))).resolves.toMatchObject({ path: join(dir, "ok.txt"), name: "ok.txt", inode: expect.stringMatching(/^\d+:\d+$/) });
  });

  it("MCP-4 accepts a file of exactly 50 MB", async () => {
    await expect(checkFileArgument("doc", join(dir, "max.bin"))).resolves.toMatchObject({ path: join(dir, "max.bin"), name: "max.bin" });
  });

  it.each([
    ["a relative path", () => "ok.txt", /not an absolute path/],
    ["a dot-relative path", () => "./ok.txt", /not an absolute path/],
    ["an http URL", () => "https://example.com/a.pdf", /is a URL/],
    ["a file URL", () => `file://${dir}/ok.txt`, /is a URL/],
    ["a data: URL", () => "data:text/plain;base64,aGVsbG8=", /data: URL/],
    ["a Base64 string", () => "aGVsbG8gd29ybGQ=", /not an absolute path/],
    ["a missing file", () => join(dir, "nope.txt"), /does not exist/],
    ["a directory", () => join(dir, "folder"), /is a directory/],
    ["a FIFO", () => join(dir, "pipe"), /is a FIFO/],
    ["a device", () => "/dev/null", /is on the \/dev pseudo file system/],
    ["a file of 50 MB + 1 byte", () => join(dir, "over.bin"), /52428801 bytes, over the 52428800-byte \(50 MB\) limit/],
  ])("MCP-4 refuses %s", async (_label, value, message) => {
    expect(await refusal(value())).toMatch(message);
  });

  it("MCP-4 / SEC-5 symlinks: followed to a regular file, whose real path is imported under the link's name", async () => {
    await expect(checkFileArgument("doc", join(dir, "link-to-file"))).resolves.toMatchObject({ path: join(dir, "ok.txt"), name: "link-to-file" });
  });

  it.each([
    ["to a directory", "link-to-folder", /is a directory/],
    ["to a FIFO", "link-to-pipe", /is a FIFO/],
    ["whose target is missing", "dangling", /target does not exist/],
  ])("MCP-4 symlinks: refuses a link %s", async (_label, name, message) => {
    expect(await refusal(join(dir, name))).toMatch(message);
  });

  it("MCP-4 checks every file param (single and multiple) and names the failing one", async () => {
    const params = [
      { name: "doc", type: "file" as const },
      { name: "docs", type: "file" as const, multiple: true },
      { name: "text", type: "string" as const },
    ];
    await expect(checkFileParams(params, { doc: join(dir, "ok.txt"), docs: [join(dir, "link-to-file")], text: "t" })).resolves.toMatchObject({
      params: { text: "t" },
      files: { doc: { path: join(dir, "ok.txt"), name: "ok.txt" }, docs: [{ path: join(dir, "ok.txt"), name: "link-to-file" }] },
    });
    await expect(checkFileParams(params, { docs: [join(dir, "ok.txt"), "rel.txt"] })).rejects.toThrow(/arguments\.docs\[1\] is not an absolute path/);
  });

  it("DX-2 a file param left out that has a default imports the default path (the run gets a managed file, as typed)", async () => {
    const params = [
      { name: "template", type: "file" as const, default: join(dir, "link-to-file") },
      { name: "extra", type: "file" as const, multiple: true, default: [join(dir, "ok.txt")] },
    ];
    const ok = { path: join(dir, "ok.txt"), name: "ok.txt" };
    await expect(checkFileParams(params, {})).resolves.toMatchObject({ params: {}, files: { template: { ...ok, name: "link-to-file" }, extra: [ok] } });
    await expect(checkFileParams(params, { template: join(dir, "max.bin") })).resolves.toMatchObject({
      params: {},
      files: { template: { path: join(dir, "max.bin"), name: "max.bin" }, extra: [ok] },
    });
    await expect(checkFileParams([{ name: "template", type: "file", default: join(dir, "missing") }], {})).rejects.toThrow(/arguments\.template does not exist/);
  });
});
