import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { cleanup, runCli, startMcp, tempDir, writeProject } from "./helpers.js";

// CFG-5: `--related-project alias=<dir>` binds a project only when the relation is confirmed on
// both sides — each project's package.json lists the other's id in `relatedProjects`. Real CLI
// processes (`run` and `mcp`) on real project folders.
const HOME_ID = "1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
const PEER_ID = "2e3d4c5b-6f7a-4b8c-9d0e-1f2a3b4c5d6e";
const WORKFLOW = "export default { entrypoints: { related: { run: (_params, context) => context.relatedProjects } } };\n";

describe("CFG-5 related projects must be confirmed on both sides", () => {
  let root: string;
  const project = (name: string, id: string, relatedProjects?: unknown) =>
    writeProject(join(root, name), {
      "package.json": JSON.stringify({ name, type: "module", id, projectType: "workflow", main: "workflow.mjs", ...(relatedProjects === undefined ? {} : { relatedProjects }) }),
      "workflow.mjs": WORKFLOW,
    });
  const run = (dir: string, related: string) => runCli(["run", dir, "related", "--json", "--data-dir", join(root, "data"), "--related-project", related]);

  beforeAll(async () => {
    root = await tempDir("cfg5-");
  });
  afterAll(async () => {
    await cleanup(root);
  });

  it("CFG-5 a relation both projects confirm is bound: the run sees the alias", async () => {
    const home = await project("home-both", HOME_ID, [PEER_ID]);
    const peer = await project("peer-both", PEER_ID, [HOME_ID.toUpperCase()]);
    const result = await run(home, `peer=${peer}`);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).result.data.output).toEqual({ peer: { alias: "peer", projectId: PEER_ID, directory: peer } });
  }, 60_000);

  it("CFG-5 `run`: a relation the related project has not confirmed is refused (relation_unconfirmed, exit 2), nothing runs", async () => {
    const home = await project("home-one-sided", HOME_ID, [PEER_ID]);
    const peer = await project("peer-silent", PEER_ID);
    const result = await run(home, `peer=${peer}`);
    expect(result.code).toBe(2);
    const rejection = JSON.parse(result.stdout);
    expect(rejection).toMatchObject({ runId: null, status: "rejected", error: { code: "relation_unconfirmed", field: "--related-project" } });
    expect(rejection.error.message).toContain(`the package.json of ${peer} "relatedProjects" must list ${HOME_ID}`);
    expect(rejection.error.message).not.toContain("this project's package.json");
  }, 60_000);

  it("CFG-5 `mcp`: a relation this project has not confirmed is refused before the server starts (exit 2)", async () => {
    const home = await project("home-silent", HOME_ID);
    const peer = await project("peer-confirms", PEER_ID, [HOME_ID]);
    const result = await runCli(["mcp", home, "--data-dir", join(root, "data"), "--related-project", `peer=${peer}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--related-project peer: the relation is not confirmed on both sides");
    expect(result.stderr).toContain(`this project's package.json "relatedProjects" must list ${PEER_ID}`);
    expect(result.stdout).toBe("");
  }, 60_000);

  it("CFG-5 `mcp` with a confirmed relation serves the project and binds the alias", async () => {
    const home = await project("home-mcp", HOME_ID, [PEER_ID]);
    const peer = await project("peer-mcp", PEER_ID, [HOME_ID]);
    const session = await startMcp(home, ["--data-dir", join(root, "data"), "--related-project", `peer=${peer}`]);
    try {
      const result = await session.client.callTool({ name: "related", arguments: {} });
      expect(result.structuredContent).toMatchObject({ status: "success", output: { peer: { projectId: PEER_ID, directory: peer } } });
    } finally {
      await session.close();
    }
  }, 60_000);

  it("CFG-5 a malformed relatedProjects in package.json is input_validation naming the entry", async () => {
    const home = await project("home-malformed", HOME_ID, ["not-a-uuid"]);
    const result = await runCli(["structure", home, "--json"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"relatedProjects"[0] must be a project id (UUID)');
  }, 60_000);
});
