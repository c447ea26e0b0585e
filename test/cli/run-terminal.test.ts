import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CLI_SOURCE, cleanEnv, cleanup, KITCHEN, REPO, tempDir } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(120_000);

// util-linux `script` gives the CLI a real pseudo-terminal, so the interactive path runs.
const SCRIPT = "/usr/bin/script";
const ttyIt = existsSync(SCRIPT) ? it : it.skip;

let tmp: string;
beforeAll(async () => {
  tmp = await tempDir("sh-run-tty-");
});
afterAll(async () => {
  await cleanup(tmp);
});

function runOnTerminal(args: string[], typed: string): Promise<Record<string, unknown>> {
  const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, ...CLI_SOURCE, ...args].map(quote).join(" ");
  return new Promise((resolveRun, reject) => {
    const child = execFile(SCRIPT, ["-qec", command, "/dev/null"], { cwd: REPO, env: cleanEnv(), timeout: 90_000 }, (error, stdout) => {
      const match = stdout.replace(/\r/g, "").match(/\{\s*"runId"[\s\S]*\}/);
      if (!match) return reject(new Error(`no run report in output (${error?.message ?? "exit 0"}):\n${stdout}`));
      resolveRun(JSON.parse(match[0]) as Record<string, unknown>);
    });
    child.stdin?.end(typed);
  });
}

describe("WF-1 steamharness run on an interactive terminal", () => {
  ttyIt("WF-1 asks each question at the prompt and resumes the same run (skipped without util-linux script)", async () => {
    const report = (await runOnTerminal(["run", KITCHEN, "ask_twice", "--json", "--data-dir", join(tmp, "data")], "forty-two\nm\n3\ny\nham, olives\n")) as {
      runId: string;
      status: string;
      result: { data: { output: { runId: string; first: unknown; second: unknown } } };
    };
    expect(report.status).toBe("success");
    expect(report.result.data.output.runId).toBe(report.runId);
    expect(report.result.data.output.first).toEqual({ answer: "forty-two" });
    expect(report.result.data.output.second).toEqual({ size: "m", count: 3, sure: true, toppings: ["ham", "olives"] });
  });

  ttyIt("WF-1 an approval needs an explicit approve at the prompt (skipped without util-linux script)", async () => {
    const denied = (await runOnTerminal(["run", KITCHEN, "approve", "--json", "--data-dir", join(tmp, "data")], "yes please\n")) as { result: { data: { output: unknown } } };
    expect(denied.result.data.output).toEqual({ decision: "denied", sent: false });
    const approved = (await runOnTerminal(["run", KITCHEN, "approve", "--json", "--data-dir", join(tmp, "data")], "approve\n")) as { result: { data: { output: unknown } } };
    expect(approved.result.data.output).toEqual({ decision: "approved", sent: true });
  });
});
