/**
 * DX-15: with `--json`, stdout holds exactly one JSON document for every outcome — a run's report,
 * or `{ runId: null, status: "rejected", error }` when nothing ran, commander's option errors
 * included — and every stderr line says `steamharness:` once. The real CLI, stdout parsed whole.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { cleanup, KITCHEN, runCli, tempDir, type CliResult } from "./helpers.js";

jest.setTimeout(90_000);

let tmp: string;
beforeAll(async () => {
  tmp = await tempDir("sh-dx15-");
});
afterAll(() => cleanup(tmp));

const data = () => ["--data-dir", join(tmp, "data")];

/** The one document on stdout (JSON.parse fails on none, or on two). */
const documentOf = (result: CliResult) => JSON.parse(result.stdout) as { runId: unknown; status: string; error?: { code: string; message: string; field?: string } };

function expectOnePrefix(stderr: string): void {
  for (const line of stderr.split("\n").filter((text) => text.startsWith("steamharness"))) {
    expect(line).not.toMatch(/\[steamharness\]/);
    expect(line.match(/steamharness:/g)).toHaveLength(1);
  }
}

describe("DX-15 --json: one document on stdout for every outcome", () => {
  it.each([
    ["a bad option value (--timeout abc)", ["run", KITCHEN, "echo", "--timeout", "abc"], /option '--timeout <ms>' argument 'abc' is invalid/],
    ["an unknown option", ["run", KITCHEN, "echo", "--no-such-option"], /unknown option '--no-such-option'/],
    ["a missing argument", ["run", KITCHEN], /missing required argument 'entrypoint'/],
  ])("DX-15: run --json with %s prints a rejected document (exit 2) and one usage line", async (_label, args, reason) => {
    const result = await runCli([...args, "--json", ...data()]);
    expect(result.code).toBe(2);
    const document = documentOf(result);
    expect(document).toMatchObject({ runId: null, status: "rejected", error: { code: "input_validation", message: expect.stringMatching(reason) } });
    expect(result.stderr).toBe(`steamharness: ${document.error!.message} (see --help)\n`);
  });

  it("DX-15: run --json on a missing project says steamharness once on stderr, the same reason as the document", async () => {
    const result = await runCli(["run", join(tmp, "no-such-project"), "echo", "--json", ...data()]);
    expect(result.code).toBe(2);
    const document = documentOf(result);
    expect(document).toMatchObject({ runId: null, status: "rejected", error: { code: "not_found" } });
    expect(document.error!.message).not.toContain("[steamharness]");
    expect(result.stderr).toBe(`steamharness: ${document.error!.message}\n`);
    expectOnePrefix(result.stderr);
  });

  it("DX-15: run --json prints the report for a success and for a failed run", async () => {
    const success = await runCli(["run", KITCHEN, "echo", "--params", '{"text":"x"}', "--json", ...data()]);
    expect([success.code, documentOf(success).status]).toEqual([0, "success"]);
    const failed = await runCli(["run", KITCHEN, "throws", "--json", ...data()]);
    expect([failed.code, documentOf(failed).status]).toEqual([1, "failed"]);
    expectOnePrefix(failed.stderr);
  });

  it.each([
    ["structure --json on a missing project", (dir: string) => ["structure", join(dir, "missing"), "--json"], "not_found"],
    ["answer --json for a run that is not paused", () => ["answer", KITCHEN, "20260101-000000000000", "input-1", "--value", "{}", "--json", ...data()], "not_found"],
    ["runs prune --json with an unknown option", () => ["runs", "prune", KITCHEN, "--bogus", "--json"], "input_validation"],
  ])("DX-15: %s prints one rejected document and one stderr line", async (_label, args, code) => {
    const result = await runCli(args(tmp));
    expect(result.code).toBe(2);
    expect(documentOf(result)).toMatchObject({ runId: null, status: "rejected", error: { code } });
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expectOnePrefix(result.stderr);
  });

  it("DX-15: without --json an option error prints nothing on stdout", async () => {
    const result = await runCli(["run", KITCHEN, "echo", "--timeout", "abc", ...data()]);
    expect([result.code, result.stdout]).toEqual([2, ""]);
  });
});
