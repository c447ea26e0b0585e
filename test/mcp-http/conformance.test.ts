// MCP-15: the MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, server scenarios
// of spec 2025-11-25) against a real `steamharness mcp --http`, with the committed baseline of
// expected failures. The suite's CLI imports fs.globSync, which Node 20 lacks: on Node 20 it
// runs with scripts/conformance/node20-fs-glob.mjs (a resolve hook giving that package an `fs`
// with globSync); on Node 22+ the hook registers nothing.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, cleanup, REPO, tempDir } from "../cli/helpers.js";
import { startHttpMcp, type HttpMcpServer } from "./helpers.js";

jest.setTimeout(180_000);

const BASELINE = join(REPO, "test/mcp-http/conformance-expected-failures.yml");
const CLI = join(REPO, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
/** MCP-17: the 0.2.0-alpha suite (2026-07-28), installed under the alias conformance-2026, and its baseline. */
const BASELINE_2026 = join(REPO, "test/mcp-http/conformance-2026-expected-failures.yml");
const CLI_2026 = join(REPO, "node_modules/conformance-2026/dist/index.js");
const HOOK = join(REPO, "scripts/conformance/node20-fs-glob.mjs");
/** serve-workflow's PROGRESS_INTERVAL_MS_ENV (named here: importing that module costs this file its load), and the heartbeat it sets. */
const PROGRESS_MS_ENV = "STEAMHARNESS_MCP_PROGRESS_MS";
const PROGRESS_MS = 500;

let tmp: string;
let server: HttpMcpServer;
let server2025: HttpMcpServer;
// ARCH-12: the two suites run side by side, each against a server of its own (started together),
// instead of one after the other: most of each run is the suite waiting on the fixture's timed
// runs (progress heartbeats, task lifetimes), and neither run disturbs the other's workers.
let runs: Promise<[{ code: number; output: string }, { code: number; output: string }]>;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-conformance-");
  const fixture = join(REPO, "test/mcp-http/fixtures/conformance");
  // Three warm workers: server-stateless gives its log probe 500 ms right after two probes whose
  // runs end mid-way (the -32021 question, the input round), and such a run's worker is replaced.
  // ARCH-12: heartbeats every 500 ms (the fixture's progress run then lasts four of them, 2 s,
  // instead of 6.5 s at the default 2 s); both suites still require three.
  const env = cleanEnv({ [PROGRESS_MS_ENV]: String(PROGRESS_MS) });
  [server, server2025] = await Promise.all([
    startHttpMcp(fixture, ["--data-dir", join(tmp, "data"), "--workers", "3"], { env }),
    startHttpMcp(fixture, ["--data-dir", join(tmp, "data-2025")], { env }),
  ]);
  runs = Promise.all([
    conformance(["server", "--url", server2025.url.href, "--spec-version", "2025-11-25", "--expected-failures", BASELINE, "-o", join(tmp, "results")]),
    conformance(["server", "--url", server.url.href, "--requirements", "2026-07-28", "-o", join(tmp, "results-2026")], CLI_2026),
  ]);
}, 120_000);
afterAll(async () => {
  // Nothing still runs against the servers (or writes into tmp) when they stop.
  await runs?.catch(() => undefined);
  await Promise.all([server?.stop(), server2025?.stop()]);
  await cleanup(tmp);
}, 180_000);

function conformance(args: string[], cli = CLI): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", HOOK, cli, ...args], { cwd: tmp, env: cleanEnv(), timeout: 150_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe("MCP-15 MCP conformance suite", () => {
  it("MCP-15 the committed baseline is empty (every server scenario passes); an entry would have to say why", () => {
    const baseline = readFileSync(BASELINE, "utf8");
    const entries = baseline.split("\n").filter((line) => /^\s*-\s/.test(line));
    for (const entry of entries) expect(entry).toMatch(/^\s*- [a-z0-9-]+\s+# \S/);
    expect({ entries, server: baseline.match(/^server:.*$/m)?.[0] }).toEqual({ entries: [], server: "server: []" });
  });

  it("MCP-15 the 2025-11-25 server scenarios pass against --http, but for the baseline (no regression, no stale entry)", async () => {
    const [run] = await runs;
    expect(run.output).toContain("=== SUMMARY ===");
    for (const scenario of ["server-initialize", "ping", "tools-list", "server-sse-multiple-streams", "dns-rebinding-protection", "elicitation-sep1034-defaults", "elicitation-sep1330-enums", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource", "tools-call-mixed-content", "completion-complete", "resources-list", "resources-read-text", "resources-read-binary", "resources-templates-read", "resources-subscribe", "resources-unsubscribe", "prompts-list", "prompts-get-simple", "prompts-get-with-args", "prompts-get-embedded-resource", "prompts-get-with-image", "tools-call-sampling"]) expect(run.output).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
    expect({ code: run.code, tail: run.code === 0 ? "" : run.output.slice(-3000) }).toEqual({ code: 0, tail: "" });
  });
});

describe("MCP-17 MCP-18 the 2026-07-28 conformance suite on the same endpoint", () => {
  it("MCP-17 MCP-18 the 2026-07-28 baseline is empty too (every scenario passes); an entry would have to name one scenario and say why", () => {
    const baseline = readFileSync(BASELINE_2026, "utf8");
    const entries = baseline.split("\n").filter((line) => /^\s*-\s/.test(line));
    for (const entry of entries) expect(entry).toMatch(/^\s*- [a-z0-9-]+\s+# \S/);
    expect({ entries, server: baseline.match(/^server:.*$/m)?.[0] }).toEqual({ entries: [], server: "server: []" });
  });

  it("MCP-17 the 2026-07-28 server scenarios (--requirements 2026-07-28) pass against --http, but for the baseline", async () => {
    const listed = new Set(readFileSync(BASELINE_2026, "utf8").split("\n").map((line) => /^\s*- ([a-z0-9-]+)/.exec(line)?.[1]).filter((name): name is string => name !== undefined));
    const [, run] = await runs;
    expect(run.output).toContain("=== SUMMARY ===");
    const outcomes = [...run.output.matchAll(/^([✓✗]) ([a-z0-9-]+): \d+ passed, \d+ failed$/gm)].map(([, mark, name]) => ({ name: name!, passed: mark === "✓" }));
    for (const scenario of ["server-stateless", "http-custom-header-server-validation", "input-required-result-non-tool-request", "tools-list", "tools-call-simple-text", "tools-call-with-progress", "completion-complete", "resources-read-text", "sep-2164-resource-not-found", "prompts-get-with-args", "dns-rebinding-protection", "caching", "http-header-validation"]) expect(outcomes).toContainEqual({ name: scenario, passed: true });
    // MCP-20: the tasks extension on the durable task store.
    for (const scenario of ["tasks-lifecycle", "tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal", "tasks-dispatch-and-envelope", "tasks-required-task-error", "tasks-mrtr-input", "tasks-mrtr-composition"]) expect(outcomes).toContainEqual({ name: scenario, passed: true });
    // MCP-3: a tool whose input is a JSON Schema 2020-12 document, listed as declared; MCP-7 × MCP-20: greet's answer text first.
    for (const scenario of ["json-schema-2020-12", "tasks-request-headers"]) expect(outcomes).toContainEqual({ name: scenario, passed: true });
    // Unlisted and failing: a regression (or a new scenario that needs an entry saying why); listed and passing: a stale entry.
    expect(outcomes.filter((outcome) => !outcome.passed && !listed.has(outcome.name)).map((outcome) => outcome.name)).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.passed && listed.has(outcome.name)).map((outcome) => outcome.name)).toEqual([]);
  });
});
