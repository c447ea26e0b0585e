// One throwaway PostgreSQL cluster for the whole run (jest.config.js `globalSetup` and
// `globalTeardown`), so that `npm test` tests everything without a variable to set.
//
// - `STEAMHARNESS_TEST_POSTGRES_URL` set: that server is used, nothing is started.
// - No PostgreSQL suite among the files the command line selects (`npm test -- test/cli`): nothing
//   is started (a cluster costs seconds that a single non-PostgreSQL file should not pay).
// - Otherwise, with an `initdb` on this machine (PATH, or Debian's /usr/lib/postgresql/*/bin) or
//   under CI (`CI=true`, where scripts/postgres-test-cluster.sh installs Debian's postgresql):
//   the script starts a cluster in a fresh temp folder and its URL is exported in process.env,
//   which the workers jest forks afterwards inherit. A start that fails fails the run.
// - Otherwise: one line names the PostgreSQL suites that will be skipped, and why.
//
// The teardown stops the cluster and removes its folder, also when tests failed; an exit hook
// covers runs that end without reaching the teardown (an error in the setup, Ctrl-C).
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCRIPT = path.join(ROOT, "scripts/postgres-test-cluster.sh");
const VARIABLE = "STEAMHARNESS_TEST_POSTGRES_URL";
// The started cluster's folder: setup and teardown run in the same process.
let clusterDir;

/**
 * The `initdb` scripts/postgres-test-cluster.sh would use (PATH first, then Debian's newest
 * /usr/lib/postgresql/<major>/bin), or undefined when this machine has none.
 *
 * @example
 * if (!findInitdb()) console.log("no PostgreSQL server binaries here");
 */
export function findInitdb() {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir !== "" && existsSync(path.join(dir, "initdb"))) return path.join(dir, "initdb");
  }
  let versions = [];
  try {
    versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  } catch {
    // No Debian PostgreSQL packages.
  }
  return versions.map((version) => path.join("/usr/lib/postgresql", version, "bin", "initdb")).find((file) => existsSync(file));
}

/** The test files that declare a PostgreSQL suite (test/fixtures/postgres.ts, private-postgres.ts). */
const postgresTestFiles = () =>
  readdirSync(path.join(ROOT, "test"), { recursive: true })
    .map((file) => String(file).split(path.sep).join("/"))
    .filter((file) => file.endsWith(".test.ts") && /\bdescribe(Private)?Postgres\(|directivesOf\(program\)\.postgres/.test(readFileSync(path.join(ROOT, "test", file), "utf8")))
    .sort()
    .map((file) => `test/${file}`);

/**
 * The PostgreSQL test files this run may select: all of them, unless the command line names test
 * paths (jest's `testPathPatterns`) and none matches. `--findRelatedTests` and `--onlyChanged`
 * pick files we cannot see here: then all.
 */
const selectedPostgresTestFiles = (globalConfig) => {
  const files = postgresTestFiles();
  const patterns = globalConfig?.testPathPatterns;
  if (!patterns?.isSet?.() || globalConfig.findRelatedTests || globalConfig.onlyChanged || globalConfig.changedSince) return files;
  const executor = patterns.toExecutor({ rootDir: globalConfig.rootDir });
  return files.filter((file) => executor.isMatch(path.join(ROOT, file)));
};

const stop = () => {
  if (!clusterDir) return;
  const dir = clusterDir;
  clusterDir = undefined;
  try {
    // pg_ctl's progress lines go to stderr: shown only when stopping fails.
    execFileSync("bash", [SCRIPT, "stop", dir], { stdio: "pipe", timeout: 120_000 });
  } catch (error) {
    process.stderr.write(`[steamharness tests] stopping the throwaway PostgreSQL in ${dir} failed: ${error.stderr || error.message}\n`);
  }
};

/**
 * jest `globalSetup`: starts the run's PostgreSQL cluster when none is named (see the top of the file).
 *
 * @example
 * // jest.config.js
 * export default { globalSetup: "<rootDir>/test/jest-postgres.mjs", globalTeardown: "<rootDir>/test/jest-postgres-teardown.mjs" };
 */
export default async function startTestPostgres(globalConfig) {
  if (process.env[VARIABLE]) return;
  const files = selectedPostgresTestFiles(globalConfig);
  if (files.length === 0) return;
  if (!findInitdb() && process.env.CI !== "true") {
    process.stderr.write(
      `[steamharness tests] PostgreSQL suites skipped: no initdb on this machine (PATH, /usr/lib/postgresql/*/bin) and ${VARIABLE} unset — install Debian's postgresql or set the variable; skipped in ${files.join(", ")}\n`,
    );
    return;
  }
  clusterDir = mkdtempSync(path.join(tmpdir(), "sh-test-pg-"));
  process.once("exit", stop);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      stop();
      // This listener is gone now: the signal's default action ends the process as before.
      process.kill(process.pid, signal);
    });
  }
  try {
    // Under CI without initdb the script installs Debian's postgresql first (apt): minutes at worst.
    const { stdout } = await promisify(execFile)("bash", [SCRIPT, "start", clusterDir], { timeout: 900_000, maxBuffer: 16 * 1024 * 1024 });
    process.env[VARIABLE] = stdout.trim();
  } catch (error) {
    stop();
    throw new Error(`[steamharness tests] could not start the throwaway PostgreSQL (${SCRIPT}): ${error.stderr || error.message}`);
  }
}

/**
 * jest `globalTeardown`: stops the cluster {@link startTestPostgres} started, if any.
 *
 * @example
 * await stopTestPostgres();
 */
export async function stopTestPostgres() {
  stop();
}
