// CFG-2 / MCP-9 over HTTP: what a call keeps with its run is committed before its answer leaves.
// A paused run's configuration snapshot is kept (its answer runs it again on its id) before the
// pause is answered; a run that ended keeps none. A real
// `mcp --http` process, the SDK's real client, SIGKILL of the server (and so of its workers) the
// moment the answer arrives, then the run store read back with the library's SQLite storage.
import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { RUN_SNAPSHOT_PREFIX } from "../../src/domain/configuration/run-snapshot.js";
import { parseProjectConfigurationSnapshot } from "../../src/domain/configuration/snapshot.js";
import { cleanup, KITCHEN, KITCHEN_ID, tempDir } from "../cli/helpers.js";
import { connectHttp, startHttpMcp } from "./helpers.js";

jest.setTimeout(120_000);

let tmp: string;
beforeAll(async () => {
  tmp = await tempDir("sh-mcp-durable-");
});
afterAll(async () => {
  await cleanup(tmp);
});

/** The snapshot kept under `runId` in the server's values store, or null. */
async function keptSnapshot(dataDir: string, runId: string): Promise<unknown> {
  const storage = createSqliteStorage({ directory: join(dataDir, "values") });
  try {
    return await storage.values.get(KITCHEN_ID, `${RUN_SNAPSHOT_PREFIX}${runId}`);
  } finally {
    await storage.close();
  }
}

it("CFG-2 a paused call's configuration snapshot is in the run store when its answer arrives: SIGKILL of the server right after the response loses none; calls that ended keep none", async () => {
  const dataDir = join(tmp, "data");
  const server = await startHttpMcp(KITCHEN, ["--data-dir", dataDir, "--workers", "2"]);
  let pausedRunId: string;
  const ended: string[] = [];
  try {
    // No elicitation capability: a call that asks for input ends interaction_required, answerable later by run id.
    const client = await connectHttp(server.url);
    const echo = async () => {
      const result = (await client.callTool({ name: "echo", arguments: { text: "call" } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      return (result.structuredContent as { runId: string }).runId;
    };
    // Until the host's stores are open (once the project has loaded) a worker takes and keeps the snapshot itself.
    for (let i = 0; i < 100 && (await keptSnapshot(dataDir, await echo())) !== null; i++) await new Promise((resolveWait) => setTimeout(resolveWait, 20));
    for (let i = 0; i < 3; i++) ended.push(await echo());
    const waiting = (await client.callTool({ name: "ask_twice", arguments: {} })) as CallToolResult;
    expect((waiting.structuredContent as { error: { code: string } }).error.code).toBe("interaction_required");
    pausedRunId = (waiting.structuredContent as { runId: string }).runId;
    // Killed the instant the answer is in: no cleanup, no close, no checkpoint.
    server.child.kill("SIGKILL");
    await server.stop();
    await client.close().catch(() => undefined);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
  }
  const saved = await keptSnapshot(dataDir, pausedRunId);
  expect(saved).not.toBeNull();
  expect(parseProjectConfigurationSnapshot(saved)).toMatchObject({ version: 1, projectId: KITCHEN_ID });
  // A run that ended is never run again on its id: no row per call.
  for (const runId of ended) expect(await keptSnapshot(dataDir, runId)).toBeNull();
});
