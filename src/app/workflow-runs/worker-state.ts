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

/**
 * The worker's `process.env` behind a proxy of itself that notes every change made through it
 * (set, delete, define): a run that changed nothing is restored without reading the environment
 * (one read of every variable costs about as much as the rest of a trivial run). Reads pass
 * through; changes reach the real environment, so child processes and native code see them. A
 * change a native addon makes with setenv() bypasses the proxy and is not put back.
 */
interface WatchedEnv {
  readonly real: NodeJS.ProcessEnv;
  proxy: NodeJS.ProcessEnv;
  changed: boolean;
}

let watched: WatchedEnv | null = null;

function watchEnv(): WatchedEnv {
  if (watched && process.env === watched.proxy) return watched;
  const real = process.env;
  const state: WatchedEnv = { real, proxy: real, changed: false };
  state.proxy = new Proxy(real, {
    set: (target, key, value) => ((state.changed = true), Reflect.set(target, key, value)),
    deleteProperty: (target, key) => ((state.changed = true), Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, descriptor) => ((state.changed = true), Reflect.defineProperty(target, key, descriptor)),
  });
  process.env = state.proxy;
  watched = state;
  return state;
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
  const env = watchEnv();
  env.changed = false;
  return { env: { ...env.real }, cwd: process.cwd(), resources: countResources() };
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
  // Compared in full only when the run changed the environment through process.env, or put
  // another object in its place (then the real environment comes back as process.env).
  const env = watched;
  if (!env || env.changed || process.env !== env.proxy) {
    const real = env?.real ?? process.env;
    for (const key of Object.keys(real)) if (!(key in snapshot.env)) delete real[key];
    for (const [key, value] of Object.entries(snapshot.env)) if (value !== undefined && real[key] !== value) real[key] = value;
    if (env) {
      process.env = env.proxy;
      env.changed = false;
    }
  }
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
