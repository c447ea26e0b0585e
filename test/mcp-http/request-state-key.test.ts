// MCP-19: the key that signs a 2026-07-28 requestState is one per deployment: every host on a
// data dir reads the same key file, created once (also when hosts start together), or the key
// given in STEAMHARNESS_MCP_STATE_KEY. Real files in a temp folder.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { createProjectFiles } from "../../src/adapters/driven/worker-process/project-files.js";
import { loadRequestStateKey, REQUEST_STATE_KEY_FILE } from "../../src/adapters/driving/mcp/input-required.js";
import { cleanup, tempDir } from "../cli/helpers.js";

let tmp: string;
const files = createProjectFiles({ sessionFolderOf: () => "" });

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-state-key-");
});
afterAll(async () => {
  await cleanup(tmp);
});

describe("MCP-19 the requestState key every host of a deployment shares", () => {
  it("MCP-19 hosts starting together on one data dir all get the one key file that was created first, readable by its owner only", async () => {
    const dataDir = join(tmp, "data-a");
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadRequestStateKey(files, dataDir)));
    expect(new Set(keys).size).toBe(1);
    expect(Buffer.byteLength(keys[0]!)).toBeGreaterThanOrEqual(32);
    expect((await readFile(join(dataDir, REQUEST_STATE_KEY_FILE), "utf8")).trim()).toBe(keys[0]);
    expect((await stat(join(dataDir, REQUEST_STATE_KEY_FILE))).mode & 0o077).toBe(0);
    // A later start reads it again; another data dir has a key of its own.
    expect(await loadRequestStateKey(files, dataDir)).toBe(keys[0]);
    expect(await loadRequestStateKey(files, join(tmp, "data-b"))).not.toBe(keys[0]);
  });

  it("MCP-19 a key given to every host (STEAMHARNESS_MCP_STATE_KEY) is used as is; one shorter than 32 bytes is refused with input_validation", async () => {
    const given = "k".repeat(40);
    expect(await loadRequestStateKey(files, join(tmp, "data-c"), given)).toBe(given);
    await expect(loadRequestStateKey(files, join(tmp, "data-c"), "short")).rejects.toMatchObject({ code: "input_validation", message: expect.stringContaining("at least 32 bytes") });
  });
});
