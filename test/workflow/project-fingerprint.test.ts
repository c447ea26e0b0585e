import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { catalogCacheSlot, readCatalogCache, writeCatalogCache } from "../../src/adapters/driving/mcp/catalog-cache.js";
import { parseWorkers } from "../../src/adapters/driving/mcp/serve-workflow.js";
import { resolveDataDirs } from "../../src/adapters/driven/worker-process/data-dirs.js";
import { dataDirDefaults, projectFiles } from "../../src/compose/workflow-runs.js";
import { projectFingerprint } from "../../src/adapters/driven/worker-process/project-fingerprint.js";
import { locateWorkflowProject } from "../../src/adapters/driven/worker-process/project-location.js";
import { cleanup, tempDir, writeProject } from "../cli/helpers.js";

let tmp: string;
let project: string;
beforeAll(async () => {
  tmp = await tempDir("sh-fingerprint-");
  project = await writeProject(join(tmp, "project"), {
    "package.json": JSON.stringify({ type: "module", id: "6c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", projectType: "workflow", main: "src/main.mjs" }),
    "src/main.mjs": `export default { entrypoints: { a: { title: "A", run: () => 1 } } };\n`,
    "src/helper.ts": "export const x = 1;\n",
    "README.md": "# notes\n",
  });
});
afterAll(async () => {
  await cleanup(tmp);
});

const fingerprint = async (salt = "s", exclude: string[] = []) => projectFingerprint(await locateWorkflowProject(project), { salt, exclude });

describe("MCP-9 project fingerprint", () => {
  it("MCP-9 is stable for an unchanged project and changes with a module, .env, the lockfile or the salt", async () => {
    const base = await fingerprint();
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(await fingerprint()).toBe(base);
    expect(await fingerprint("other")).not.toBe(base);

    await writeFile(join(project, "src/helper.ts"), "export const x = 2;\n");
    const edited = await fingerprint();
    expect(edited).not.toBe(base);

    await writeFile(join(project, ".env"), "A=1\n");
    const withEnv = await fingerprint();
    expect(withEnv).not.toBe(edited);

    await mkdir(join(project, "node_modules"), { recursive: true });
    await writeFile(join(project, "node_modules/.package-lock.json"), "{}");
    const withLock = await fingerprint();
    expect(withLock).not.toBe(withEnv);
  });

  it("MCP-9 ignores non-module files, dependencies' own files, dot-folders and excluded data dirs", async () => {
    const before = await fingerprint("s", [join(project, "data")]);
    await writeFile(join(project, "README.md"), "# changed notes\n");
    await mkdir(join(project, "node_modules/dep"), { recursive: true });
    await writeFile(join(project, "node_modules/dep/index.js"), "export default 1;\n");
    await mkdir(join(project, ".git"), { recursive: true });
    await writeFile(join(project, ".git/index.json"), "{}");
    await mkdir(join(project, "data/cache"), { recursive: true });
    await writeFile(join(project, "data/cache/x.json"), "{}");
    expect(await fingerprint("s", [join(project, "data")])).toBe(before);
  });
});

describe("MCP-9 catalog cache", () => {
  it("MCP-9 a written catalog is read back under the same key only, from the data dir", async () => {
    const location = await locateWorkflowProject(project);
    const dirs = resolveDataDirs({ dataDir: join(tmp, "data") }, dataDirDefaults());
    const slot = await catalogCacheSlot(location, dirs, "1.0.0", projectFiles);
    expect(slot.path).toBe(join(tmp, "data", "cache", "mcp-catalog", `${location.manifest.id}.json`));
    expect(await readCatalogCache(slot)).toBeNull();
    const catalog = { structure: { projectId: location.manifest.id, entrypoints: [] }, tools: [] };
    expect(await writeCatalogCache(slot, catalog as never)).toBeNull();
    expect(await readCatalogCache(slot)).toEqual(catalog);
    expect(await readCatalogCache(await catalogCacheSlot(location, dirs, "2.0.0", projectFiles))).toBeNull();
    await writeFile(join(project, "src/main.mjs"), `export default { entrypoints: {} };\n`);
    expect(await readCatalogCache(await catalogCacheSlot(location, dirs, "1.0.0", projectFiles))).toBeNull();
    await rm(join(tmp, "data"), { recursive: true, force: true });
  });
});

describe("MCP-9 --workers parsing", () => {
  it("MCP-9 accepts whole numbers from 1 to 64 and refuses the rest with input_validation", () => {
    expect(parseWorkers("1")).toBe(1);
    expect(parseWorkers("64")).toBe(64);
    for (const bad of ["0", "65", "2.5", "1e1", "", " ", "-2", "two"]) {
      expect(() => parseWorkers(bad)).toThrow(expect.objectContaining({ code: "input_validation", field: "--workers" }));
    }
  });
});
