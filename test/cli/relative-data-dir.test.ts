// DX-18: `--data-dir` may be relative: it is the folder the person sees from where they typed the
// command (resolved once against the working directory), for run and for the commands that
// already accepted it (config). The real CLI, started from a folder of its own.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, cleanup, EXAMPLE, runCli, tempDir } from "./helpers.js";

let cwd: string;

beforeAll(async () => {
  cwd = await tempDir("sh-relative-data-dir-");
});

afterAll(async () => {
  await cleanup(cwd);
});

describe("DX-18 a relative --data-dir", () => {
  it("DX-18 run --data-dir ./data keeps the run's stores in <cwd>/data and a second run finds them there", async () => {
    const env = cleanEnv({ HOME: join(cwd, "home") });
    const first = await runCli(["run", EXAMPLE, "greet", "--params", '{"name":"Ada"}', "--json", "--data-dir", "./data"], { cwd, env });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: "success" });
    expect(readdirSync(join(cwd, "data")).length).toBeGreaterThan(0);
    // Nothing went to the default data dir.
    expect(existsSync(join(cwd, "home", ".steamharness"))).toBe(false);
    const config = await runCli(["config", "show", EXAMPLE, "--data-dir", "./data"], { cwd, env });
    expect(config.code).toBe(0);
    expect(existsSync(join(cwd, "home", ".steamharness"))).toBe(false);
  }, 120_000);
});
