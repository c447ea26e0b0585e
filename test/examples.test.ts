import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

// Every top-level examples/*.ts is documentation that must keep working: it runs here, in CI,
// offline (the examples use the offline model unless a provider key is set; CI sets none).
const examples = existsSync("examples") ? readdirSync("examples").filter((name) => name.endsWith(".ts")).sort() : [];

describe("examples run", () => {
  it("there are examples to run", () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  for (const name of examples) {
    it(`examples/${name} exits 0`, () => {
      const env = { ...process.env };
      for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]) delete env[key];
      const result = spawnSync(process.execPath, ["--import", "tsx", join("examples", name)], { encoding: "utf8", env, timeout: 120_000 });
      if (result.status !== 0) throw new Error(`examples/${name} exited ${result.status}\n${result.stdout}\n${result.stderr}`);
      // DX-4: the demo prints the agent's final answer with finalText.
      if (name === "demo.ts") expect(result.stdout).toContain("final answer: Done: NOTES.md follows the style guide and the request is recorded in KV.\n");
    }, 130_000);
  }
});
