import { appendFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { tenantStorage } from "../../src/app/tenants/tenant-storage.js";
import { forkLineage, forkSession } from "../../src/app/time-travel/fork-session.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import type { ToolPermissionDecision } from "../../src/ports/tool-permissions.js";
import type { SessionBackend } from "../../src/ports/session-backend.js";
import type { SessionAddress, SessionEvent } from "../../src/ports/session-store.js";
import type { Storage } from "../../src/ports/storage.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { describePostgres } from "../fixtures/postgres.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { runNode } from "../agent/helpers.js";

const workdir = tempDirRemovedAfterAll("fork-work-");
const effectsFile = path.join(tempDirRemovedAfterAll("fork-effects-"), "effects.log");
afterAll(() => rmSync(effectsFile, { force: true }));

/** Effects counted by the tool itself, one line per run: `<runId> <amount>` (FORK-2). */
const effects = (runId?: string): string[] => (existsSync(effectsFile) ? readFileSync(effectsFile, "utf8").split("\n").filter((line) => line !== "" && (runId === undefined || line.startsWith(`${runId} `))) : []);
const charge: AgentTool = {
  name: "charge", label: "charge", description: "Charges an amount (not safe to repeat)",
  parameters: Type.Object({ amount: Type.Number() }),
  async execute(_id, args) {
    appendFileSync(effectsFile, `${currentRun} ${String((args as { amount: number }).amount)}\n`);
    return { content: [{ type: "text", text: `charged ${String((args as { amount: number }).amount)}` }] };
  },
};
const lookup: AgentTool = { name: "lookup", label: "lookup", description: "Reads a value", parameters: Type.Object({ key: Type.String() }), replay: "safe", async execute(_id, args) { return { content: [{ type: "text", text: `value of ${String((args as { key: string }).key)}` }] }; } };
let currentRun = "";

const PARENT_STEPS: OfflineStep[] = [
  { text: "Charging and looking.", toolCalls: [{ id: "c5", name: "charge", arguments: { amount: 5 } }, { id: "l1", name: "lookup", arguments: { key: "a" } }] },
  { toolCalls: [{ id: "c7", name: "charge", arguments: { amount: 7 } }] },
  { text: "Done." },
];
/** The fork's model repeats every call of the parent, whatever history the fork kept, then answers. */
const REPEAT_STEPS = (request: ModelRequest): OfflineStep =>
  request.messages.at(-1)?.role === "user"
    ? { toolCalls: [{ id: "r5", name: "charge", arguments: { amount: 5 } }, { id: "r7", name: "charge", arguments: { amount: 7 } }, { id: "rl", name: "lookup", arguments: { key: "a" } }] }
    : { text: "Repeated." };
const CATALOG = [{ id: "charge", autoApprove: true }, { id: "lookup", autoApprove: true }];

async function run(storage: Storage, address: SessionAddress, runId: string, steps: OfflineStep[] | ((request: ModelRequest) => OfflineStep), decide: (request: { toolId: string; arguments: unknown }) => ToolPermissionDecision = () => ({ outcome: "pending" })) {
  currentRun = runId;
  const permissions = createMemoryToolPermissions({ decide });
  const node = createAgentNode({ models: createOfflineModel({ steps }), workdir, retryDelayMs: 0, sessionKey: address.sessionKey, extraTools: [charge, lookup] });
  const context = createNodeContext({ projectId: address.projectId, conversationId: address.conversationId!, storage, runId, toolPermissions: permissions, toolCatalog: CATALOG });
  const outcome = await runNode(node, { prompt: "go" }, context);
  return { outcome, asked: permissions.requests.map((request) => `${request.toolId} ${JSON.stringify(request.arguments)}`) };
}

async function allEvents(sessions: SessionBackend, address: SessionAddress): Promise<SessionEvent[]> {
  const store = (await sessions.openUnleased({ address, create: false }))!;
  try {
    return await store.readAfter(0);
  } finally {
    await store.close();
  }
}

/** The hazards expected at `at`, worked out from event ids alone: every call with an event after the point. */
function expectedHazards(events: SessionEvent[], at: number): string[] {
  const calls = events.filter((event) => event.type === "tool_intent").map((event) => (event.type === "tool_intent" ? event.payload : null)!);
  return calls
    .filter((call) => events.some((event) => event.seq > at && event.eventId.includes(`/tool/${call.toolCallId}/`)))
    .map((call) => `${call.toolName} ${JSON.stringify(call.arguments)} ${call.toolName === "charge" ? "unsafe" : "safe"}`);
}

function forkSuite(name: string, open: () => Promise<Storage>) {
  describe(`FORK-1 FORK-2 on ${name}`, () => {
    it(`FORK-1 FORK-2 ${name}: fork at every event of a run with an unsafe tool — exact hazards, the prefix kept, no unsafe effect re-fired without a fresh decision`, async () => {
      const storage = await open();
      const sessions = storage.sessions!;
      const parent = { projectId: "p", conversationId: `c-${name}`, sessionKey: "agent" };
      const first = await run(storage, parent, `${name}-parent`, PARENT_STEPS);
      expect(first.outcome.error).toBeUndefined();
      expect(effects(`${name}-parent`)).toEqual([`${name}-parent 5`, `${name}-parent 7`]);
      const events = await allEvents(sessions, parent);
      expect(events.length).toBeGreaterThan(8);
      for (let at = 0; at <= events.length; at++) {
        const fork = await forkSession({ sessions, from: parent, at: { seq: at } });
        expect(fork.atSeq).toBe(at);
        expect(fork.hazards.map((hazard) => `${hazard.toolName} ${JSON.stringify(hazard.arguments)} ${hazard.replay}`)).toEqual(expectedHazards(events, at));
        // The prefix byte for byte (seq, ids, payloads, times), then the fork record.
        const forked = await allEvents(sessions, fork.address);
        expect(forked.slice(0, at)).toEqual(events.slice(0, at));
        expect(forked).toHaveLength(at + 1);
        expect((await forkLineage(sessions, fork.address)).map((record) => [record.parent.sessionKey, record.atSeq])).toEqual([["agent", at]]);

        // Every repeat is denied: an unsafe repeat of a hazard is asked (fresh decision) although the catalog auto-approves it.
        const runId = `${name}-fork-${at}`;
        const repeated = await run(storage, fork.address, runId, REPEAT_STEPS, () => ({ outcome: "denied", reason: "no" }));
        expect(repeated.outcome.error).toBeUndefined();
        const unsafeHazards = fork.hazards.filter((hazard) => hazard.replay === "unsafe").map((hazard) => `charge ${JSON.stringify(hazard.arguments)}`);
        expect({ at, asked: repeated.asked.sort() }).toEqual({ at, asked: unsafeHazards.sort() });
        // Fired: only the charges the fork's own history had completed (new calls the catalog allows), never a hazard.
        const fired = effects(runId).map((line) => line.split(" ")[1]);
        expect(fired.sort()).toEqual(["5", "7"].filter((amount) => !unsafeHazards.includes(`charge {"amount":${amount}}`)).sort());
      }
      await storage.close();
    }, 240_000);

    it(`FORK-2 ${name}: a fresh approval runs the repeat once; effects "recorded" answers it from the parent's recording without running`, async () => {
      const storage = await open();
      const sessions = storage.sessions!;
      const parent = { projectId: "p", conversationId: `c2-${name}`, sessionKey: "agent" };
      await run(storage, parent, `${name}-p2`, PARENT_STEPS);
      const approved = await forkSession({ sessions, from: parent, at: { seq: 0 } });
      const fresh = await run(storage, approved.address, `${name}-approved`, REPEAT_STEPS, () => ({ outcome: "approved" }));
      expect(fresh.asked.sort()).toEqual(['charge {"amount":5}', 'charge {"amount":7}']);
      expect(effects(`${name}-approved`).length).toBe(2);

      const recorded = await forkSession({ sessions, from: parent, at: { turn: 0 }, effects: "recorded" });
      const replayed = await run(storage, recorded.address, `${name}-recorded`, REPEAT_STEPS);
      expect(replayed.outcome.error).toBeUndefined();
      expect(replayed.asked).toEqual([]);
      expect(effects(`${name}-recorded`)).toEqual([]);
      const results = (await allEvents(sessions, recorded.address)).flatMap((event) => (event.type === "tool_result" && event.runId === `${name}-recorded` ? [event.payload.message.content[0]!.text] : []));
      expect(results).toEqual(expect.arrayContaining(["charged 5", "charged 7"]));
      await storage.close();
    }, 60_000);

    it(`FORK-1 ${name}: forks of forks keep their lineage and their ancestors' guards; a turn point forks after whole runs`, async () => {
      const storage = await open();
      const sessions = storage.sessions!;
      const parent = { projectId: "p", conversationId: `c3-${name}`, sessionKey: "agent" };
      await run(storage, parent, `${name}-p3`, PARENT_STEPS);
      const events = await allEvents(sessions, parent);
      const afterFirstCharge = events.find((event) => event.type === "tool_result" && event.payload.message.toolCallId === "c5")!.seq;
      const child = await forkSession({ sessions, from: parent, at: { seq: afterFirstCharge } });
      const whole = await forkSession({ sessions, from: child.address, at: { turn: 1 } });
      expect(whole.atSeq).toBe(afterFirstCharge + 1);
      // A grandchild forked before the child's point still guards the charge the grandparent made after it.
      const grandchild = await forkSession({ sessions, from: child.address, at: { seq: 1 } });
      expect((await forkLineage(sessions, grandchild.address)).map((record) => [record.parent.sessionKey, record.atSeq])).toEqual([
        ["agent", afterFirstCharge],
        [child.address.sessionKey, 1],
      ]);
      const denied = await run(storage, grandchild.address, `${name}-grandchild`, REPEAT_STEPS, () => ({ outcome: "denied" }));
      expect(denied.asked.sort()).toEqual(['charge {"amount":5}', 'charge {"amount":7}']);
      expect(effects(`${name}-grandchild`)).toEqual([]);
      await storage.close();
    }, 60_000);

    it(`FORK-1 ${name}: an unknown session, a point past the head, a bad point and another tenant's session are typed errors that write nothing`, async () => {
      const storage = await open();
      const acme = tenantStorage(storage, "key:acme");
      const other = tenantStorage(storage, "key:other");
      const parent = { projectId: "p", conversationId: `c4-${name}`, sessionKey: "agent" };
      await run(acme, parent, `${name}-p4`, PARENT_STEPS);
      const lastSeq = (await allEvents(acme.sessions!, parent)).length;
      const to = { ...parent, sessionKey: "agent#target" };
      const failures = [
        forkSession({ sessions: acme.sessions!, from: { ...parent, sessionKey: "missing" }, at: { seq: 0 }, to }),
        forkSession({ sessions: acme.sessions!, from: parent, at: { seq: lastSeq + 1 }, to }),
        forkSession({ sessions: acme.sessions!, from: parent, at: { turn: 2 }, to }),
        forkSession({ sessions: acme.sessions!, from: parent, at: { seq: -1 }, to }),
        forkSession({ sessions: acme.sessions!, from: parent, at: { seq: 1.5 }, to }),
        forkSession({ sessions: other.sessions!, from: parent, at: { seq: 1 }, to }),
      ];
      const codes = [];
      for (const failure of failures) codes.push(await failure.then(() => "ok", (error: unknown) => (isSteamharnessError(error) ? `${error.code}` : String(error))));
      expect(codes).toEqual(["not_found", "input_validation", "input_validation", "input_validation", "input_validation", "not_found"]);
      expect(await acme.sessions!.openUnleased({ address: to, create: false })).toBeNull();
      expect(await other.sessions!.openUnleased({ address: to, create: false })).toBeNull();
      // The target taken: `conflict`, and the existing session is untouched.
      const made = await forkSession({ sessions: acme.sessions!, from: parent, at: { seq: 2 }, to });
      const before = await allEvents(acme.sessions!, made.address);
      const again = await forkSession({ sessions: acme.sessions!, from: parent, at: { seq: 3 }, to }).catch((error: unknown) => error);
      expect(isSteamharnessError(again, "conflict")).toBe(true);
      expect(await allEvents(acme.sessions!, made.address)).toEqual(before);
      await storage.close();
    }, 60_000);
  });
}

forkSuite("memory", async () => new MemoryStorage());
forkSuite("sqlite", async () => createSqliteStorage({ directory: tempDirRemovedAfterAll("fork-sqlite-") }));
describePostgres("FORK-1 FORK-2 PostgreSQL", (database) => {
  forkSuite("postgres", async () => createPostgresStorage({ pool: database.pool, schema: database.freshSchema() }));
});
