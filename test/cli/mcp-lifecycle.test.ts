import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { alive, cleanup, KITCHEN, startMcp, tempDir, waitFor } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(120_000);

let tmp: string;
beforeAll(async () => {
  tmp = await tempDir("sh-mcp-life-");
});
afterAll(async () => {
  await cleanup(tmp);
});

async function readPid(file: string): Promise<number> {
  let pid = 0;
  await waitFor(async () => {
    pid = Number(await readFile(file, "utf8").catch(() => "0"));
    return pid > 0;
  }, 60_000);
  return pid;
}

describe("MCP-7 / MCP-5 run lifecycle", () => {
  it("MCP-7 a run over --timeout ends with a concise timeout error and its worker is killed", async () => {
    const session = await startMcp(KITCHEN, ["--data-dir", join(tmp, "data"), "--timeout", "4000"]);
    try {
      await session.client.listTools();
      const pidFile = join(tmp, "timeout.pid");
      const pending = session.client.callTool({ name: "sleep", arguments: { pidFile } }) as Promise<CallToolResult>;
      const pid = await readPid(pidFile);
      const result = await pending;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ status: "timeout", entrypointId: "sleep", error: { code: "timeout", message: "the run timed out after 4000 ms" } });
      await waitFor(() => !alive(pid), 1000);
    } finally {
      await session.close();
    }
  });

  it("MCP-5 a worker never outlives its host: killing the server ends the running worker", async () => {
    const session = await startMcp(KITCHEN, ["--data-dir", join(tmp, "data")]);
    const pidFile = join(tmp, "orphan.pid");
    const pending = session.client.callTool({ name: "sleep", arguments: { pidFile } });
    pending.catch(() => undefined);
    const pid = await readPid(pidFile);
    process.kill(session.transport.pid!, "SIGKILL");
    await waitFor(() => !alive(pid), 5000);
    await session.close().catch(() => undefined);
  });
});
