/**
 * What a reused workflow worker (MCP-9) puts back between runs. A worker that serves several
 * runs keeps its loaded project and its open stores; the process-wide state a run can change —
 * environment variables and the working directory — is restored after each run, and a run that
 * leaves work running behind it (a timer, a socket, a child process, a pending file operation)
 * makes its worker unfit for another run: the host retires it and starts a fresh one.
 */

/** Process-wide state of an idle worker, taken once the project has loaded. */
export interface WorkerStateSnapshot {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Active handles and requests by type (`Timeout`, `TCPWrap`, `FSReqCallback`, …). */
  readonly resources: ReadonlyMap<string, number>;
}

function countResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/**
 * Takes the snapshot an idle worker is restored to after each run.
 *
 * @example
 * const idle = snapshotWorkerState();
 * // … run an entrypoint …
 * const leftovers = restoreWorkerState(idle); // [] when the run left nothing behind
 */
export function snapshotWorkerState(): WorkerStateSnapshot {
  return { env: { ...process.env }, cwd: process.cwd(), resources: countResources() };
}

/**
 * Restores the environment variables (added ones removed, changed or removed ones put back) and
 * the working directory of `snapshot`, then lists what the run left running: one entry per
 * resource type with more active handles than in the snapshot, e.g. `"1 Timeout"`. Restoring is
 * always done; a non-empty list means the worker must not serve another run.
 *
 * @example
 * const leftovers = restoreWorkerState(idle);
 * if (leftovers.length > 0) console.error(`the run left ${leftovers.join(", ")} running`);
 */
export function restoreWorkerState(snapshot: WorkerStateSnapshot): string[] {
  for (const key of Object.keys(process.env)) if (!(key in snapshot.env)) delete process.env[key];
  for (const [key, value] of Object.entries(snapshot.env)) if (value !== undefined && process.env[key] !== value) process.env[key] = value;
  const leftovers: string[] = [];
  if (process.cwd() !== snapshot.cwd) {
    try {
      process.chdir(snapshot.cwd);
    } catch {
      leftovers.push(`a working directory it cannot leave (${process.cwd()})`);
    }
  }
  for (const [type, count] of countResources()) {
    const extra = count - (snapshot.resources.get(type) ?? 0);
    if (extra > 0) leftovers.push(`${extra} ${type}`);
  }
  return leftovers;
}
