/**
 * PostgreSQL session backend (issue 13, PG-1 … PG-3); writes bench/results/postgres.json.
 *
 * A. The 100-step durable tool loop (default tools; a conversation run taking the session's lease),
 *    a fresh process per run, with everything on PostgreSQL versus everything on SQLite, in the
 *    same run: ms per step and the ratio (goal ≤ 3×).
 * B. Throughput on one PostgreSQL: 2 host processes × 16 concurrent conversations versus
 *    1 host process × 16, each conversation running turns back to back (prompt → one tool call →
 *    answer): turns/s and the ratio (goal ≥ 1.6×; the machine has 2 cores, shared).
 * C. Lease takeover after SIGKILL: a process holds a session, a second one retries its lease every
 *    10 ms; the holder is killed; the time from the kill to the second one's lease (≥ 10 kills).
 *
 * The server is STEAMHARNESS_TEST_POSTGRES_URL, or a throwaway cluster started with
 * scripts/postgres-test-cluster.sh (fsync off, as in the tests) and removed at the end.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = mkdtempSync(join(tmpdir(), "bench-postgres-"));
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

let cluster: string | null = null;
let url = process.env.STEAMHARNESS_TEST_POSTGRES_URL;
if (!url) {
  // A folder of its own under the temp dir (the script hands it to the postgres user when we are
  // root): inside `root`, a 0700 mkdtemp, initdb running as postgres could not enter it.
  cluster = mkdtempSync(join(tmpdir(), "bench-postgres-cluster-"));
  url = execFileSync("scripts/postgres-test-cluster.sh", ["start", cluster], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}
let schemas = 0;
const freshSchema = () => `bench_pg_${process.pid}_${schemas++}`;

const child = (args: string[]): Record<string, number> => {
  const result = spawnSync(process.execPath, ["--import", "tsx", join("bench", "postgres-child.ts"), ...args], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`bench child ${args.join(" ")} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as Record<string, number>;
};

/** A long-lived child whose JSON lines can be awaited. */
function startChild(args: string[]) {
  const proc = spawn(process.execPath, ["--import", "tsx", join("bench", "postgres-child.ts"), ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: proc.stdout! }).on("line", (line) => {
    lines.push(JSON.parse(line) as Record<string, unknown>);
    for (const waiter of waiters.splice(0)) waiter();
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return {
    proc,
    exited,
    async waitFor(event: string): Promise<Record<string, unknown>> {
      for (;;) {
        const found = lines.find((line) => line.event === event);
        if (found) return found;
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited.then(() => { throw new Error(`bench child ${args[0]} exited before ${event}`); })]);
      }
    },
  };
}

try {
  // A. Durable tool loop -----------------------------------------------------------------------
  const STEPS = 100;
  const ROUNDS = 5;
  const loops = { sqlite: [] as number[], postgres: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    // The two backends back to back in each round; the first round warms the disk cache and the server.
    loops.sqlite.push(child(["loop", "sqlite", join(root, `loop-${r}`), String(STEPS)]).msPerStep!);
    loops.postgres.push(child(["loop", "postgres", url, freshSchema(), String(STEPS)]).msPerStep!);
  }
  const pairedLoop = median(loops.postgres.map((ms, r) => ms / loops.sqlite[r]!));
  console.log(`A. 100-step loop: PostgreSQL ${median(loops.postgres).toFixed(3)} ms/step, SQLite ${median(loops.sqlite).toFixed(3)} ms/step → ${pairedLoop.toFixed(2)}× median of paired rounds (goal ≤ 3×)`);

  // B. Throughput: 2 hosts × 16 conversations vs 1 × 16 ------------------------------------------
  const CONVERSATIONS = 16;
  const TURNS = 10;
  const throughput = async (hosts: number, round: number): Promise<number> => {
    const schema = freshSchema();
    const go = join(root, `go-${hosts}-${round}`);
    const children = Array.from({ length: hosts }, (_, h) => startChild(["turns", url!, schema, `h${h}`, String(CONVERSATIONS), String(TURNS), go]));
    await Promise.all(children.map((c) => c.waitFor("ready")));
    writeFileSync(go, "");
    const done = await Promise.all(children.map((c) => c.waitFor("done")));
    await Promise.all(children.map((c) => c.exited));
    const turns = done.reduce((sum, d) => sum + (d.turns as number), 0);
    const seconds = (Math.max(...done.map((d) => d.endedAt as number)) - Math.min(...done.map((d) => d.startedAt as number))) / 1000;
    return turns / seconds;
  };
  const rates = { one: [] as number[], two: [] as number[] };
  for (let r = 0; r < 3; r++) {
    rates.one.push(await throughput(1, r));
    rates.two.push(await throughput(2, r));
  }
  const pairedRate = median(rates.two.map((rate, r) => rate / rates.one[r]!));
  console.log(`B. throughput: 2 hosts × ${CONVERSATIONS} conversations ${median(rates.two).toFixed(1)} turns/s, 1 host × ${CONVERSATIONS} ${median(rates.one).toFixed(1)} turns/s → ${pairedRate.toFixed(2)}× (goal ≥ 1.6×; ${availableParallelism()} cores, PostgreSQL on the same machine)`);

  // C. Lease takeover after SIGKILL --------------------------------------------------------------
  const KILLS = 12;
  const takeoverSchema = freshSchema();
  const takeovers: number[] = [];
  for (let k = 0; k < KILLS; k++) {
    const conversation = `takeover-${k}`;
    const holder = startChild(["hold", url, takeoverSchema, conversation]);
    await holder.waitFor("held");
    const waiter = startChild(["wait", url, takeoverSchema, conversation]);
    await waiter.waitFor("waiting");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const killedAt = Date.now();
    holder.proc.kill("SIGKILL");
    const acquired = await waiter.waitFor("acquired");
    takeovers.push(((acquired.at as number) - killedAt) / 1000);
    await Promise.all([holder.exited, waiter.exited]);
  }
  console.log(`C. takeover after SIGKILL (${KILLS} kills, standby retrying every 10 ms): median ${median(takeovers).toFixed(3)} s, max ${Math.max(...takeovers).toFixed(3)} s`);

  const result = {
    machine: { cores: availableParallelism(), server: cluster ? "throwaway cluster (scripts/postgres-test-cluster.sh, fsync off), same machine" : "STEAMHARNESS_TEST_POSTGRES_URL" },
    a_durableToolLoop: {
      steps: STEPS,
      rounds: ROUNDS,
      postgresMsPerStep: round(median(loops.postgres)),
      sqliteMsPerStep: round(median(loops.sqlite)),
      ratio: round(pairedLoop, 2),
      statistic: "median of the per-round ratios (a fresh process per run, backends back to back in each round)",
      goal: 3,
      rawMsPerStep: { postgres: loops.postgres.map((v) => round(v)), sqlite: loops.sqlite.map((v) => round(v)) },
    },
    b_throughput: {
      conversationsPerHost: CONVERSATIONS,
      turnsPerConversation: TURNS,
      oneHostTurnsPerSecond: round(median(rates.one), 1),
      twoHostsTurnsPerSecond: round(median(rates.two), 1),
      ratio: round(pairedRate, 2),
      goal: 1.6,
      raw: { one: rates.one.map((v) => round(v, 1)), two: rates.two.map((v) => round(v, 1)) },
    },
    c_takeoverAfterSigkill: { kills: KILLS, retryEveryMs: 10, medianSeconds: round(median(takeovers)), maxSeconds: round(Math.max(...takeovers)), all: takeovers.map((v) => round(v)) },
  };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/postgres.json", `${JSON.stringify(result, null, 2)}\n`);
  console.log("wrote bench/results/postgres.json");
} finally {
  if (cluster) execFileSync("scripts/postgres-test-cluster.sh", ["stop", cluster], { stdio: ["ignore", "ignore", "inherit"] });
  rmSync(root, { recursive: true, force: true });
}
