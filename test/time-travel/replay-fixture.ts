// A recorded run for the replay, export and eval tests: one unsafe tool (`charge`) and one safe
// tool (`lookup`), each counting its executions in a side file (the tool itself, not the test).
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createSqliteStorage, type SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { openAgent } from "../../src/app/agent/create-agent.js";
import type { AgentOptions } from "../../src/app/agent/types.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { NodeContext } from "../../src/domain/node-context.js";
import type { SessionStore } from "../../src/ports/session-store.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";

export const PROJECT = "project-replay";
export const SESSION_KEY = "agent";

const countingTool = (name: string, replay: "safe" | "never", file: string): AgentTool => ({
  name,
  label: name,
  description: `${name}: counts its calls in a side file`,
  parameters: Type.Object({ key: Type.String() }),
  replay,
  async execute(_id, params) {
    appendFileSync(file, `${(params as { key: string }).key}\n`);
    return { content: [{ type: "text", text: `${name} ${(params as { key: string }).key} done` }], details: { key: (params as { key: string }).key } };
  },
});

/** Lines a tool wrote to its side file (one per execution). */
export const effects = (dir: string, tool: "charge" | "lookup"): string[] => {
  const file = path.join(dir, `${tool}.log`);
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
};

export const RECORDED_STEPS: OfflineStep[] = [
  { text: "Looking up.", toolCalls: [{ name: "lookup", arguments: { key: "alpha" } }], usage: { input: 100, output: 10 } },
  { toolCalls: [{ name: "charge", arguments: { key: "card-1" } }], usage: { input: 120, output: 8 } },
  { text: "Charged card-1 after looking up alpha.", usage: { input: 140, output: 12 } },
];

/** The agent options of the fixture's runs on `steps` (the replay uses other steps to diverge). */
export function fixtureAgent(dir: string, steps: OfflineStep[] = RECORDED_STEPS): AgentOptions {
  return {
    models: createOfflineModel({ steps }),
    workdir: dir,
    retryDelayMs: 0,
    tools: ["lookup", "charge"],
    extraTools: [countingTool("charge", "never", path.join(dir, "charge.log")), countingTool("lookup", "safe", path.join(dir, "lookup.log"))],
  };
}

/** A context of the fixture's project: `charge` needs a person's approval, answered `approve`. */
export function fixtureContext(storage: SqliteStorage, runId: string, approve = true): NodeContext {
  return createNodeContext({
    projectId: PROJECT,
    storage,
    runId,
    toolCatalog: [{ id: "lookup", autoApprove: true }, { id: "charge" }],
    toolPermissions: createMemoryToolPermissions({ decide: () => ({ outcome: approve ? "approved" : "denied" }) }),
  });
}

/** Records run `runId` in a SQLite storage under `dir` and returns the storage and its session (unleased). */
export async function recordRun(dir: string, runId = "run-original", prompt = "Look up alpha, then charge card-1."): Promise<{ storage: SqliteStorage; source: SessionStore }> {
  const storage = createSqliteStorage({ directory: path.join(dir, "store"), agentStoreDir: path.join(dir, "agents") });
  const agent = openAgent({ ...fixtureAgent(dir), sessionKey: SESSION_KEY, sessions: storage.sessions });
  for await (const chunk of agent.run({ prompt, runId }, fixtureContext(storage, runId))) void chunk;
  const source = await storage.sessions.openUnleased({ address: { projectId: PROJECT, sessionKey: SESSION_KEY }, create: false });
  return { storage, source: source! };
}
