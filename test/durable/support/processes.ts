// Parent side of the durability tests: builds the agent child fixture once and drives child
// processes over IPC, answering their pauses with the scenario's decisions.
import { fork, type ChildProcess } from "node:child_process";
import type { ChildConfig, ChildDecision, ChildMessage } from "../fixtures/protocol.js";
import { SCENARIOS } from "../fixtures/scenarios.js";
import { bundledFixture } from "../../fixtures/bundled-fixture.js";

/**
 * The child fixture bundled (test/fixtures/bundled-fixture.ts: our sources and pure-JS packages
 * inlined) into one ESM file, so each child starts with a plain `node` instead of compiling
 * TypeScript through tsx: on a loaded 2-core machine that is the difference between ~0.3 s and
 * ~3 s per process, and the torture spawns hundreds. The code-mode sandbox starts its worker
 * threads from `sandbox-worker.mjs` beside it, as the build has dist/sandbox-worker.js (SEC-3).
 */
export function childBundle(): Promise<string> {
  return Promise.resolve(bundledFixture("test/durable/fixtures/agent-child.ts", { sandboxWorker: true }));
}

/** How a child process ended, with everything it reported. */
export interface ChildOutcome {
  messages: ChildMessage[];
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last `done` message, if the child got that far. */
  done: Extract<ChildMessage, { type: "done" }> | null;
  pauses: Array<Extract<ChildMessage, { type: "pause" }>>;
}

/** The decision the parent gives for a pause, from the scenario. */
export function decisionFor(scenarioName: string, pause: { requestId: string; kind: string }): ChildDecision {
  const { decisions } = SCENARIOS[scenarioName]!;
  if (pause.kind === "question") return { requestId: pause.requestId, kind: "question", answer: decisions.answer };
  if (pause.kind === "plan") return { requestId: pause.requestId, kind: "plan", approved: decisions.plan === "approved" };
  return { requestId: pause.requestId, kind: "tool_approval", approved: decisions.toolApproval === "approved" };
}

/**
 * Runs one child to its end (exit or SIGKILL). In `onPause: "ask"` mode every pause is answered
 * with the scenario's decision, in the same process.
 */
export async function runChild(config: ChildConfig, options: { timeoutMs?: number; onMessage?: (message: ChildMessage, child: ChildProcess) => void } = {}): Promise<ChildOutcome> {
  const bundle = await childBundle();
  const child = fork(bundle, [JSON.stringify(config)], { stdio: ["ignore", "inherit", "inherit", "ipc"], execArgv: [] });
  const messages: ChildMessage[] = [];
  child.on("message", (raw) => {
    const message = raw as ChildMessage;
    messages.push(message);
    if (message.type === "pause" && (config.onPause ?? "ask") === "ask") child.send(decisionFor(config.scenario, message));
    options.onMessage?.(message, child);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => child.on("exit", (c, s) => done([c, s])));
  clearTimeout(timer);
  const crash = messages.find((message) => message.type === "crash");
  if (crash?.type === "crash") throw new Error(`agent child crashed: ${crash.error}`);
  const done = [...messages].reverse().find((message) => message.type === "done") as ChildOutcome["done"] | undefined;
  const pauses = messages.filter((message): message is Extract<ChildMessage, { type: "pause" }> => message.type === "pause");
  return { messages, code, signal, done: done ?? null, pauses };
}

/**
 * Runs `tasks` with at most `limit` in flight (two cores: two children at a time), keeping order.
 */
export async function inParallel<T, R>(tasks: readonly T[], limit: number, run: (task: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await run(tasks[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
