// DX-16 / ARCH-12 `npm test` tests everything: with an `initdb` on the machine, the jest global
// setup (test/jest-postgres.mjs) starts one throwaway PostgreSQL for the run, so the PostgreSQL
// suites run without STEAMHARNESS_TEST_POSTGRES_URL, and the teardown removes the cluster.
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { findInitdb } from "../jest-postgres.mjs";
import { runToCompletion } from "../fixtures/run-command.js";

const ROOT = path.resolve(".");
// The smallest PostgreSQL test file (test/jest-timings.json): three tests, well under a second.
const POSTGRES_FILE = "test/budgets/budget-ledger-postgres.test.ts";

const available = findInitdb() !== undefined || process.env.CI === "true";
const describeWithInitdb = available ? describe : describe.skip;

describeWithInitdb(`DX-16 npm test starts its own PostgreSQL${available ? "" : " — skipped: no initdb on this machine (CI installs one)"}`, () => {
  // The child jest's temp folder: the cluster's folder is made in it, so its removal is visible.
  // Open to others: as root the cluster runs as the `postgres` user, which must get through.
  const temp = mkdtempSync(path.join(tmpdir(), "sh-global-setup-"));
  chmodSync(temp, 0o755);
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it("DX-16 a PostgreSQL test file runs (not skipped) with no STEAMHARNESS_TEST_POSTGRES_URL, and the run's cluster is gone afterwards", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp };
    delete env.STEAMHARNESS_TEST_POSTGRES_URL;
    // Under CI the fixture fails instead of skipping without a server: this proves the setup, not that.
    delete env.CI;
    const result = await runToCompletion(
      process.execPath,
      ["--experimental-vm-modules", "--disable-warning=ExperimentalWarning", "node_modules/jest/bin/jest.js", "--json", "--runTestsByPath", POSTGRES_FILE],
      { cwd: ROOT, env, timeoutMs: 240_000 },
    );
    expect(result.stderr).not.toContain("PostgreSQL suites skipped");
    const report = JSON.parse(result.stdout) as { numPassedTests: number; numPendingTests: number; numFailedTests: number };
    expect({ status: result.status, passed: report.numPassedTests > 0, pending: report.numPendingTests, failed: report.numFailedTests }).toEqual({ status: 0, passed: true, pending: 0, failed: 0 });
    // The teardown stopped the cluster and removed its folder (jest's own cache folder stays).
    expect(readdirSync(temp).filter((name) => name.startsWith("sh-test-pg-"))).toEqual([]);
  }, 300_000);
});
