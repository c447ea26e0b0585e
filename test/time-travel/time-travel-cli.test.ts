import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "@jest/globals";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { openAgent } from "../../src/app/agent/create-agent.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { cleanup, runCli, tempDir, writeProject } from "../cli/helpers.js";
import { effects, fixtureAgent } from "./replay-fixture.js";

const PROJECT_ID = "3b0f5c1e-6d2a-4e8b-9c7d-1a2b3c4d5e6f";
const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

/** A conversation project whose agent is the replay fixture's (tools counting their calls in side files), with one recorded run. */
async function projectWithRun(): Promise<{ project: string; data: string }> {
  const root = await tempDir("sh-timetravel-");
  dirs.push(root);
  const project = join(root, "project");
  // The project's module is the bundled fixture (plain JavaScript for the built CLI, as a user's project).
  const bundle = JSON.stringify(pathToFileURL(bundledFixture("test/time-travel/fixtures/replayed-conversation.ts")).href);
  await writeProject(project, {
    "package.json": JSON.stringify({ name: "replayed", version: "1.0.0", type: "module", id: PROJECT_ID, projectType: "conversation", main: "main.mjs" }),
    "main.mjs": `import { replayedConversation } from ${bundle};\nexport default replayedConversation(${JSON.stringify(root)});\n`,
  });
  const storage = createSqliteStorage({ directory: join(root, "store"), agentStoreDir: join(project, ".workflow", "agents") });
  const agent = openAgent({ ...fixtureAgent(root), sessionKey: "agent", sessions: storage.sessions });
  const context = createNodeContext({ projectId: PROJECT_ID, storage, runId: "run-original", toolCatalog: [{ id: "lookup", autoApprove: true }, { id: "charge" }], toolPermissions: createMemoryToolPermissions({ decide: () => ({ outcome: "approved" }) }) });
  for await (const chunk of agent.run({ prompt: "Look up alpha, then charge card-1.", runId: "run-original" }, context)) void chunk;
  await storage.close();
  expect(effects(root, "charge")).toEqual(["card-1"]);
  return { project, data: join(root, "data") };
}

describe("steamharness replay / export-run / import-run / eval", () => {
  it("EVAL-1 eval exit codes: 0 when every case passes, 1 on a failing case, 1 on a regression against a baseline, 0 without one; scorecard and JUnit written", async () => {
    const { project, data } = await projectWithRun();
    const root = join(project, "..");
    const suite = (contains: string) => {
      const file = join(root, `suite-${contains.replace(/\W/g, "")}.json`);
      writeFileSync(file, JSON.stringify({ name: "cli", cases: [{ name: "charged", run: "run-original", expect: { finalText: { contains }, tools: { equal: ["lookup", "charge"] } } }] }));
      return file;
    };
    const common = ["--project", project, "--data-dir", data];
    const passing = await runCli(["eval", suite("Charged card-1"), ...common, "--scorecard", join(root, "pass.json"), "--junit", join(root, "pass.xml")]);
    expect({ code: passing.code, stderr: passing.stderr }).toEqual({ code: 0, stderr: "" });
    expect(passing.stdout).toContain("1/1 passed");
    expect(JSON.parse(readFileSync(join(root, "pass.json"), "utf8"))).toMatchObject({ suite: "cli", passed: 1, failed: 0 });
    expect(readFileSync(join(root, "pass.xml"), "utf8")).toContain("<testsuite");

    const failing = await runCli(["eval", suite("nope"), ...common, "--scorecard", join(root, "fail.json")]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("0/1 passed");
    // Against a baseline where it passed: a regression (1); against one where it failed too: none (0).
    expect((await runCli(["eval", suite("nope"), ...common, "--baseline", join(root, "pass.json")])).code).toBe(1);
    expect((await runCli(["eval", suite("nope"), ...common, "--baseline", join(root, "fail.json")])).code).toBe(0);
    // EVAL-1 YAML: the same case as YAML (an anchor shares the expectation), and broken YAML is a usage error that says where.
    writeFileSync(join(root, "suite.yaml"), `name: cli-yaml\ncases:\n  - name: charged\n    run: run-original\n    expect: &charged\n      finalText: { contains: Charged card-1 }\n      tools: { equal: [lookup, charge] }\n  - name: again\n    run: run-original\n    expect: *charged\n`);
    const yaml = await runCli(["eval", join(root, "suite.yaml"), ...common, "--json"]);
    expect({ code: yaml.code, stderr: yaml.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(yaml.stdout)).toMatchObject({ suite: "cli-yaml", passed: 2, failed: 0 });
    writeFileSync(join(root, "broken.yml"), "name: broken\ncases:\n  - name: [unclosed\n");
    const broken = await runCli(["eval", join(root, "broken.yml"), ...common]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/not valid YAML: .+ at line \d+, column \d+$/m);
    // A suite that does not validate is a usage error (2).
    writeFileSync(join(root, "bad.json"), JSON.stringify({ name: "bad", cases: [] }));
    expect((await runCli(["eval", join(root, "bad.json"), ...common])).code).toBe(2);
    expect(effects(root, "charge")).toEqual(["card-1"]);
  }, 120_000);

  it("REPLAY-1 EVAL-2 replay --json fires no live tool; export-run | import-run moves the run to another session folder", async () => {
    const { project, data } = await projectWithRun();
    const root = join(project, "..");
    const replayed = await runCli(["replay", "run-original", "--project", project, "--data-dir", data, "--json"]);
    expect(replayed.code).toBe(0);
    const result = JSON.parse(replayed.stdout) as { status: string; answered: number; live: number; diff: { same: boolean } };
    expect({ status: result.status, answered: result.answered, live: result.live, same: result.diff.same }).toEqual({ status: "completed", answered: 2, live: 0, same: true });
    expect(effects(root, "charge")).toEqual(["card-1"]);
    expect(effects(root, "lookup")).toEqual(["alpha"]);

    const file = join(root, "run.jsonl");
    expect((await runCli(["export-run", "run-original", "--project", project, "--data-dir", data, "--output", file])).code).toBe(0);
    const other = join(root, "other-agents");
    const imported = await runCli(["import-run", file, "--agent-store-dir", other, "--data-dir", data, "--json"]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ runId: "run-original", appended: readFileSync(file, "utf8").trimEnd().split("\n").length - 1 });
    const again = await runCli(["export-run", "run-original", "--agent-store-dir", other, "--data-dir", data]);
    expect(again.stdout).toBe(readFileSync(file, "utf8"));
    expect(existsSync(other)).toBe(true);
    expect((await runCli(["export-run", "run-missing", "--agent-store-dir", other, "--data-dir", data])).code).toBe(2);
  }, 120_000);
});
