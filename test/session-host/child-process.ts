import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

export interface HostChild {
  proc: ChildProcess;
  events: Array<Record<string, unknown>>;
  waitFor(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  stderr: () => string;
}

/**
 * Starts a host fixture (default test/session-host/fixtures/host-child.ts) in its own node
 * process, from its bundle (test/fixtures/bundled-fixture.ts: plain node, no tsx per process).
 */
export function startHostChild(config: Record<string, unknown>, script = path.join("test", "session-host", "fixtures", "host-child.ts")): HostChild {
  const proc = spawn(process.execPath, [bundledFixture(script)], {
    env: { ...process.env, HOST_CHILD: JSON.stringify(config) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const events: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let err = "";
  proc.stderr!.on("data", (data: Buffer) => (err += data.toString()));
  createInterface({ input: proc.stdout! }).on("line", (line) => {
    try {
      events.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      return;
    }
    for (const waiter of waiters.splice(0)) waiter();
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => {
    for (const waiter of waiters.splice(0)) waiter();
    resolve(code);
  }));
  let done = false;
  void exited.then(() => (done = true));
  return {
    proc,
    events,
    exited,
    stderr: () => err,
    async waitFor(event, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find((entry) => entry.event === event);
        if (found) return found;
        if (done || Date.now() > deadline) throw new Error(`child never said ${event}; stderr:\n${err}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
  };
}
