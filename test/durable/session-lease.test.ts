import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import type { ChildConfig } from "./fixtures/protocol.js";
import { checkSession } from "./support/checks.js";
import { childBundle, runChild, type ChildOutcome } from "./support/processes.js";

// SES-2 through the agent, with real processes: the agent takes the session's lease when it
// opens its durable file (store: "agent"), so a second process on the same session is refused
// while the first is inside its run (held in a tool), and a killed owner frees it at once.
describe("SES-2 one execution owner per session across processes (through the agent)", () => {
  const root = mkdtempSync(join(tmpdir(), "durable-lease-"));
  const session = (dir: string, runId: string, extra: Partial<ChildConfig> = {}): ChildConfig => ({
    dir, scenario: "plan", runId, store: "agent", conversationId: "conv-1", ...extra,
  });
  const sessionFile = (dir: string) => resolveSessionDatabasePath({ agentStoreDir: join(dir, "agents"), conversationId: "conv-1", sessionKey: "agent" });
  beforeAll(async () => {
    await childBundle();
  }, 60_000);

  it("SES-2 a second process on a busy session is refused with session_busy; the owner finishes; then the session is free", async () => {
    const dir = join(root, "busy");
    let contender: Promise<ChildOutcome> | null = null;
    const owner = await runChild(session(dir, "run-owner", { holdTools: true }), {
      onMessage(message, child) {
        if (message.type !== "tool") return;
        if (contender) return void child.send({ type: "continue" });
        // The owner is inside its run (a tool is executing): start a contender on the same session.
        contender = runChild(session(dir, "run-other"));
        void contender.then(() => child.send({ type: "continue" }));
      },
    });
    const refused = await contender!;
    expect(refused.done?.status).toBe("failed");
    expect(refused.done?.error).toMatch(/^session_busy/);
    expect(refused.done?.items.filter((item) => item.metadata.kind === "agent-error")).toHaveLength(1);
    expect(refused.messages.filter((message) => message.type === "model" || message.type === "tool" || message.type === "append")).toEqual([]);
    // The refusal did not disturb the owner's run (SES-2: a live owner never loses the session).
    expect(owner.done?.status).toBe("completed");
    expect((await checkSession(dir, "plan", owner.messages, owner.done!.items, { sessionPath: sessionFile(dir), conversationId: "conv-1" })).violations).toEqual([]);
    // Owner gone: the same run id is replayed by a new process, which now owns the session.
    const replay = await runChild(session(dir, "run-owner", { forbidWork: true }));
    expect(replay.done?.status).toBe("completed");
  }, 90_000);

  it("SES-2 SES-4 an owner SIGKILLed inside a tool releases the session: a new process takes it at once and finishes the run", async () => {
    const dir = join(root, "killed");
    let killedAt = 0;
    const owner = await runChild(session(dir, "run-k", { holdTools: true }), {
      onMessage(message, child) {
        if (message.type === "tool" && killedAt === 0) {
          killedAt = Date.now();
          child.kill("SIGKILL");
        }
      },
    });
    expect(owner.signal).toBe("SIGKILL");
    const resumed = await runChild(session(dir, "run-k"));
    expect(resumed.done?.status).toBe("completed");
    const check = await checkSession(dir, "plan", [...owner.messages, ...resumed.messages], resumed.done!.items, { sessionPath: sessionFile(dir), conversationId: "conv-1" });
    expect(check.violations).toEqual([]);
    // The killed call was the safe lookup (killed before it wrote anything): started again by the
    // new process, not reported unknown.
    const lookups = (outcome: ChildOutcome) => outcome.messages.filter((message) => message.type === "tool" && message.toolCallId === "p-lookup").length;
    expect([lookups(owner), lookups(resumed)]).toEqual([1, 1]);
    expect(check.unknownOutcomes).toEqual([]);
  }, 90_000);
});
