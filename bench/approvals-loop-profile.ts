/**
 * The gated loop of bench/approvals.bench.ts (D) alone, for a CPU profile and for A/B runs of
 * two checkouts (issue 47): `rounds` runs of the 100-step loop, each in a fresh folder, gated
 * (`gated`), not (`plain`), or alternating both (`both`); prints the CPU ms per step of each run
 * and, past the first `skip` runs of each (default 5: the JIT warming), their medians and ratio.
 * A diagnostic, not a benchmark: it writes no result file. With `LOOP_WINDOWS=<file>`, each
 * loop's start and end (µs, the clock of a CPU profile's timestamps) are written there, so a
 * profile can be read for the loops alone.
 *
 * Run: `node --cpu-prof --import tsx bench/approvals-loop-profile.ts gated 40`
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteApprovalStore } from "../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createGovernedToolPermissions } from "../src/app/approvals/governed-tool-permissions.js";
import { timedLoop } from "./durable-support.js";

const mode = process.argv[2] ?? "both";
const rounds = Number(process.argv[3] ?? 20);
const skip = Number(process.argv[4] ?? 5);
const root = mkdtempSync(join(tmpdir(), "approvals-loop-"));
const cpus = { plain: [] as number[], gated: [] as number[] };
const windows: [number, number][] = [];

async function loopOnce(round: number, gated: boolean): Promise<void> {
  const directory = join(root, `loop-${round}-${gated}`);
  const storage = createSqliteStorage({ directory: join(directory, "store"), agentStoreDir: join(directory, "agents") });
  const store = gated ? createSqliteApprovalStore({ directory: join(directory, "store") }) : undefined;
  try {
    const gate = store && { toolCatalog: [{ id: "lookup" }, { id: "deploy" }], toolPermissions: createGovernedToolPermissions({ policy: { rules: [{ tool: "lookup", action: "allow" }] }, store, clock: { now: Date.now } }) };
    const before = process.cpuUsage();
    const from = process.hrtime.bigint() / 1000n;
    await timedLoop(storage, "loop", 100, gate);
    windows.push([Number(from), Number(process.hrtime.bigint() / 1000n)]);
    const used = process.cpuUsage(before);
    cpus[gated ? "gated" : "plain"].push((used.user + used.system) / 1000 / 100);
  } finally {
    await store?.close();
    await storage.close();
  }
}

try {
  for (let round = 0; round < rounds; round++) {
    const order = mode === "both" ? (round % 2 === 0 ? [false, true] : [true, false]) : [mode === "gated"];
    for (const gated of order) await loopOnce(round, gated);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
if (process.env.LOOP_WINDOWS) writeFileSync(process.env.LOOP_WINDOWS, JSON.stringify(windows));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const line = (name: "plain" | "gated") => `${name} cpu ms/step median ${median(cpus[name].slice(skip)).toFixed(3)} runs ${cpus[name].map((v) => v.toFixed(2)).join(" ")}`;
const shown = mode === "both" ? [line("plain"), line("gated"), `cpu ratio ${(median(cpus.gated.slice(skip)) / median(cpus.plain.slice(skip))).toFixed(3)}`] : [line(mode === "gated" ? "gated" : "plain")];
process.stdout.write(`${shown.join("\n")}\n`);
