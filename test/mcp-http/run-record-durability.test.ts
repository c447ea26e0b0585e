// CFG-2 / MCP-9 over HTTP: what a call keeps with its run is committed before its answer leaves.
// The worker sends its report before its post-run cleanup and cleans up only once the host has
// answered; the run's configuration snapshot is written before the entrypoint runs. A real
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

it("CFG-2 a call's configuration snapshot is in the run store when its answer arrives: SIGKILL of the server right after the response loses none", async () => {
  const dataDir = join(tmp, "data");
  const server = await startHttpMcp(KITCHEN, ["--data-dir", dataDir, "--workers", "2"]);
  const runIds: string[] = [];
  try {
    const client = await connectHttp(server.url);
    for (let i = 0; i < 5; i++) {
      const result = (await client.callTool({ name: "echo", arguments: { text: `call ${i}` } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      runIds.push((result.structuredContent as { runId: string }).runId);
    }
    // Killed the instant the last answer is in: no cleanup, no close, no checkpoint.
    server.child.kill("SIGKILL");
    await server.stop();
    await client.close().catch(() => undefined);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
  }
  const storage = createSqliteStorage({ directory: join(dataDir, "values") });
  try {
    for (const runId of runIds) {
      const saved = await storage.values.get(KITCHEN_ID, `${RUN_SNAPSHOT_PREFIX}${runId}`);
      expect(saved).not.toBeNull();
      expect(parseProjectConfigurationSnapshot(saved)).toMatchObject({ version: 1, projectId: KITCHEN_ID });
    }
  } finally {
    await storage.close();
  }
});
