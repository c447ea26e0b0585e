// TEN-3 / SES-12: `runs prune` reaches the runs of every tenant: each tenant of `mcp --http` keeps
// its runs' agent sessions and run index in its own folder under the session folder, and a prune
// of the project removes the due runs there as in the folder itself. Real session files, real indexes.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createSqliteRunRetention } from "../../src/adapters/driven/sqlite/run-retention/sqlite-run-retention.js";
import { conversationSessionsDirectory } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { pruneProjectRuns } from "../../src/app/workflow-runs/run-pruning.js";
import { workflowRunPorts } from "../../src/compose/workflow-runs.js";
import { createTenantRetentions, type RunSessionsRetention } from "../../src/app/workflow-runs/run-retention.js";
import { tenantDirectory } from "../../src/app/tenants/tenant-segment.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

const PROJECT_ID = "2b3c4d5e-6f70-4a81-9b2c-3d4e5f607182";

/** A finished, long-due run with one session file in `agentStoreDir`. */
async function dueRun(agentStoreDir: string, runId: string): Promise<string> {
  const sessions = createSqliteSessionBackend({ agentStoreDir, maxIdleSessions: 0 });
  const store = await sessions.open({ address: { projectId: PROJECT_ID, conversationId: runId, sessionKey: "agent" }, ownerId: runId });
  await store.append([{ eventId: `${runId}/plan`, runId, type: "plan", payload: { planIndex: 0, text: "step" } }]);
  await store.close();
  await sessions.close();
  const index = await createSqliteRunRetention({ agentStoreDir });
  await index.mark({ projectId: PROJECT_ID, runId, state: "finished", at: 1, expiresAt: 2 });
  index.close();
  return conversationSessionsDirectory({ agentStoreDir, conversationId: runId });
}

describe("TEN-3 runs prune covers the tenants' run folders", () => {
  it("TEN-3: runs prune removes due runs of the host's folder and of each tenant's folder", async () => {
    const projectDir = tempDirRemovedAfterAll("tenant-prune-");
    await writeFile(join(projectDir, "package.json"), JSON.stringify({ name: "p", version: "1.0.0", type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }));
    await writeFile(join(projectDir, "workflow.mjs"), "export default { entrypoints: {} };\n");
    const agentStoreDir = join(projectDir, ".workflow", "agents");
    const own = await dueRun(agentStoreDir, "run-own");
    const acme = await dueRun(tenantDirectory(agentStoreDir, "key:acme"), "run-acme");
    expect([existsSync(own), existsSync(acme)]).toEqual([true, true]);
    const { removed } = await pruneProjectRuns({ projectDir, ports: workflowRunPorts(), sessionFolder: agentStoreDir, now: 1000, olderThanMs: 0 });
    expect(removed.sort()).toEqual(["run-acme", "run-own"]);
    expect([existsSync(own), existsSync(acme)]).toEqual([false, false]);
  });

  it("TEN-3: a host keeps at most 32 tenants' run indexes open, closing the least recently used, and closes the rest with itself", async () => {
    const closed: string[] = [];
    const retentions = createTenantRetentions((tenant): RunSessionsRetention => ({ started: () => undefined, ended: () => undefined, close: async () => void closed.push(tenant) }));
    const first = retentions.of("key:t0");
    for (let i = 1; i < 32; i += 1) retentions.of(`key:t${i}`);
    expect(retentions.of("key:t0")).toBe(first); // used again: now the most recent
    retentions.of("key:t32");
    expect(closed).toEqual(["key:t1"]);
    await retentions.close();
    expect(closed).toHaveLength(33);
  });
});
