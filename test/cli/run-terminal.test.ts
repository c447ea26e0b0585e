import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { decisionsOf, writeApprovingProject } from "../fixtures/approving-project.js";
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

/** Runs the CLI on a pseudo-terminal with `typed` as keyboard input: the run report and everything the terminal showed. */
function onTerminal(args: string[], typed: string): Promise<{ report: Record<string, unknown>; screen: string }> {
  const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, ...CLI_SOURCE, ...args].map(quote).join(" ");
  return new Promise((resolveRun, reject) => {
    const child = execFile(SCRIPT, ["-qec", command, "/dev/null"], { cwd: REPO, env: cleanEnv(), timeout: 90_000 }, (error, stdout) => {
      const screen = stdout.replace(/\r/g, "");
      const match = screen.match(/\{\s*"runId"[\s\S]*\}/);
      if (!match) return reject(new Error(`no run report in output (${error?.message ?? "exit 0"}):\n${stdout}`));
      resolveRun({ report: JSON.parse(match[0]) as Record<string, unknown>, screen });
    });
    child.stdin?.end(typed);
  });
}

const runOnTerminal = async (args: string[], typed: string) => (await onTerminal(args, typed)).report;

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

  ttyIt("UI-7 an agent's approval answered at the prompt is recorded in the run's session as answered at the cli (skipped without util-linux script)", async () => {
    const project = await writeApprovingProject(join(tmp, "ui7"));
    const report = (await runOnTerminal(["run", project, "mail", "--json", "--data-dir", join(tmp, "data")], "approve\n")) as { runId: string; result: { data: { output: unknown } } };
    expect(report.result.data.output).toEqual({ answer: "sent" });
    expect(await decisionsOf([project, join(tmp, "data")], report.runId)).toEqual([expect.objectContaining({ outcome: "approved", answeredBy: { surface: "cli" } })]);
  });
});

describe("DX-4 answers at the prompt are checked against their fields", () => {
  ttyIt("DX-4 an empty required answer, a value outside the options, a non-number, a non-yes/no and an unknown option are asked again (skipped without util-linux script)", async () => {
    // Each wrong line is followed by a correct one; a wrong line that were accepted would shift
    // every later answer, so the final values prove each re-ask happened at the right field.
    const typed = ["", "forty-two", "xl", "m", "three", "3", "maybe", "y", "ham, pickles", "ham, olives", ""].join("\n");
    const { report, screen } = await onTerminal(["run", KITCHEN, "ask_twice", "--json", "--data-dir", join(tmp, "data")], typed);
    expect(report).toMatchObject({ status: "success" });
    expect((report as { result: { data: { output: unknown } } }).result.data.output).toMatchObject({
      first: { answer: "forty-two" },
      second: { size: "m", count: 3, sure: true, toppings: ["ham", "olives"] },
    });
    expect(screen).toContain("✗ answer is required; try again");
    expect(screen).toContain('✗ size must be one of "s", "m", "l" (got "xl"); try again');
    expect(screen).toContain('✗ count must be a number (got "three"); try again');
    expect(screen).toContain('✗ sure must be yes or no (got "maybe"); try again');
    expect(screen).toContain('✗ toppings must be one of "ham", "olives" (got "pickles"); try again');
  });

  ttyIt("DX-4 an optional field may be left empty and the input ending mid-question cancels the run (skipped without util-linux script)", async () => {
    const { report } = await onTerminal(["run", KITCHEN, "ask_twice", "--json", "--data-dir", join(tmp, "data")], "x\ns\n\n\n\n");
    expect((report as { result: { data: { output: { second: object } } } }).result.data.output.second).toEqual({ size: "s" });
    const cut = await onTerminal(["run", KITCHEN, "ask_twice", "--json", "--data-dir", join(tmp, "data")], "\n");
    expect(cut.report).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
  });
});
