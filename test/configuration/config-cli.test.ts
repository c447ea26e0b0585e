import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const PROJECT = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b";

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [bundledFixture("test/configuration/fixtures/config-cli.ts"), ...args], { encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("CFG-1 steamharness config", () => {
  it("CFG-1 show, export and import through the local store; an import over a changed project is a conflict", async () => {
    const root = mkdtempSync(join(tmpdir(), "config-cli-"));
    const dataDir = join(root, "data");
    const projectDir = join(root, "project");
    const file = join(root, "export.json");
    try {
      mkdirSync(projectDir);
      writeFileSync(join(projectDir, "package.json"), JSON.stringify({ id: PROJECT, projectType: "workflow", main: "w.mjs" }));
      const store = createSqliteProjectConfigurationStore({ dataDir });
      await store.setFields(PROJECT, [{ key: "title", type: "string" }], { expectedRevision: 0 });
      await store.create(PROJECT, { configurationId: "main", name: "Main", values: { title: "Roadmap" } });

      const shown = cli("config", "show", projectDir, "--data-dir", dataDir);
      expect(shown.status).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ projectId: PROJECT, revision: 2, currentConfigurationId: "main" });

      expect(cli("config", "export", projectDir, "--data-dir", dataDir, "-o", file).status).toBe(0);
      const document = JSON.parse(readFileSync(file, "utf8"));
      expect(document).toMatchObject({ format: "steamharness.project-configuration", version: 1, revision: 2, configurations: [{ configurationId: "main", values: { title: "Roadmap" } }] });

      await store.update(PROJECT, "main", { expectedRevision: 1, values: { title: "Changed meanwhile" } });
      const stale = cli("config", "import", projectDir, file, "--data-dir", dataDir);
      expect([stale.status, stale.stderr]).toEqual([1, expect.stringContaining("[conflict]")]);
      expect((await store.get(PROJECT, "main"))?.values).toEqual({ title: "Changed meanwhile" });

      const forced = cli("config", "import", projectDir, file, "--data-dir", dataDir, "--expected-revision", "3");
      expect(forced.status).toBe(0);
      expect((await store.get(PROJECT, "main"))?.values).toEqual({ title: "Roadmap" });

      writeFileSync(file, "{ not json");
      expect(cli("config", "import", projectDir, file, "--data-dir", dataDir, "--expected-revision", "4").status).toBe(2);
      await store.close?.();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
