import { afterAll, describe, expect, it } from "@jest/globals";
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

// SES-2 across real processes: each contender is `node` on a fixture (bundled) that takes the
// SQLite session lease, driven over IPC so every round is decided before the next one starts.
const fixture = join(process.cwd(), "test", "sessions", "fixtures", "lease-contender.ts");
const root = mkdtempSync(join(tmpdir(), "sh-lease-mp-"));
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

type Reply = { type: string; [key: string]: unknown };

class Contender {
  private readonly replies: Reply[] = [];
  private waiting: ((reply: Reply) => void) | null = null;
  readonly child: ChildProcess;

  constructor(databasePath: string, readonly name: string) {
    this.child = fork(bundledFixture(fixture), [databasePath, name], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    started.push(this.child);
    this.child.on("message", (reply: Reply) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = null;
        resolve(reply);
      } else this.replies.push(reply);
    });
  }

  /** The next reply; fails the test on a fixture error or after `timeoutMs`. */
  next(timeoutMs = 10_000): Promise<Reply> {
    const queued = this.replies.shift();
    const reply = queued
      ? Promise.resolve(queued)
      : new Promise<Reply>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${this.name}: no reply within ${timeoutMs} ms`)), timeoutMs);
        this.waiting = (r) => {
          clearTimeout(timer);
          resolve(r);
        };
      });
    return reply.then((r) => {
      if (r.type === "error") throw new Error(`${this.name}: ${String(r.message)}`);
      return r;
    });
  }

  hasReply(): boolean {
    return this.replies.length > 0;
  }

  async ask(command: Record<string, unknown>): Promise<Reply> {
    this.child.send(command);
    return this.next();
  }

  /** Starts a command whose reply is awaited later with {@link next}. */
  start(command: Record<string, unknown>): void {
    this.child.send(command);
  }

  stop(): void {
    if (this.child.connected) this.child.disconnect();
  }
}

async function spawnContenders(databasePath: string, names: string[]): Promise<Contender[]> {
  const contenders = names.map((name) => new Contender(databasePath, name));
  await Promise.all(contenders.map(async (c) => expect((await c.next(60_000)).type).toBe("ready")));
  return contenders;
}

describe("SQLite session lease across processes (SES-2)", () => {
  it("SES-2 two contenders × 200 rounds: exactly one owner each round", async () => {
    const [a, b] = await spawnContenders(join(root, "rounds", "s.sqlite"), ["a", "b"]);
    const wins = { a: 0, b: 0 };
    for (let round = 0; round < 200; round++) {
      a!.start({ type: "try" });
      b!.start({ type: "try" });
      const [ra, rb] = await Promise.all([a!.next(), b!.next()]);
      const owners = [ra.acquired === true ? a! : null, rb.acquired === true ? b! : null].filter((c) => c !== null);
      expect(owners.length).toBe(1);
      wins[owners[0]!.name as "a" | "b"] += 1;
      expect((await owners[0]!.ask({ type: "release" })).type).toBe("released");
    }
    expect(wins.a + wins.b).toBe(200);
    a!.stop();
    b!.stop();
  }, 120_000);

  it("SES-2 after SIGKILL of the owner another process acquires within 1 second", async () => {
    const [owner, waiter] = await spawnContenders(join(root, "kill", "s.sqlite"), ["owner", "waiter"]);
    expect((await owner!.ask({ type: "hold" })).type).toBe("holding");
    waiter!.start({ type: "poll", intervalMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(waiter!.hasReply()).toBe(false);
    const killedAt = Date.now();
    owner!.child.kill("SIGKILL");
    const acquired = await waiter!.next(5_000);
    expect(acquired.type).toBe("acquired");
    expect((acquired.at as number) - killedAt).toBeLessThan(1_000);
    expect((await waiter!.ask({ type: "check" })).held).toBe(true);
    waiter!.stop();
  }, 120_000);

  it("SES-2 an owner that exits without releasing frees the session at once", async () => {
    const [owner, waiter] = await spawnContenders(join(root, "exit", "s.sqlite"), ["owner", "waiter"]);
    expect((await owner!.ask({ type: "hold" })).type).toBe("holding");
    expect((await waiter!.ask({ type: "try" })).acquired).toBe(false);
    const exited = new Promise((resolve) => owner!.child.once("exit", resolve));
    owner!.stop(); // the fixture exits on disconnect, lease still held
    await exited;
    expect((await waiter!.ask({ type: "try" })).acquired).toBe(true);
    waiter!.stop();
  }, 120_000);

  it("SES-2 a live owner never loses the lease while others keep trying", async () => {
    const [owner, x, y] = await spawnContenders(join(root, "live", "s.sqlite"), ["owner", "x", "y"]);
    expect((await owner!.ask({ type: "hold" })).type).toBe("holding");
    x!.start({ type: "hammer", durationMs: 1_500 });
    y!.start({ type: "hammer", durationMs: 1_500 });
    const [hx, hy] = await Promise.all([x!.next(), y!.next()]);
    expect(hx.successes).toBe(0);
    expect(hy.successes).toBe(0);
    expect((hx.attempts as number) + (hy.attempts as number)).toBeGreaterThan(20);
    expect((await owner!.ask({ type: "check" })).held).toBe(true);
    expect((await owner!.ask({ type: "release" })).type).toBe("released");
    expect((await x!.ask({ type: "try" })).acquired).toBe(true);
    for (const c of [owner!, x!, y!]) c.stop();
  }, 120_000);
});
