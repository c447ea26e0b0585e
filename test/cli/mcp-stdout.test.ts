import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { CLI_SOURCE, cleanEnv, cleanup, FAKE_SECRET, KITCHEN, REPO, tempDir, waitFor } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(150_000);

let tmp: string;
let server: ChildProcessWithoutNullStreams;
let stdout = "";
let stderr = "";

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-stdout-");
  server = spawn(process.execPath, [...CLI_SOURCE, "mcp", KITCHEN, "--data-dir", join(tmp, "data")], { cwd: REPO, env: cleanEnv() });
  server.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  server.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
});
afterAll(async () => {
  server.stdin.end();
  await new Promise((r) => (server.exitCode === null ? server.once("exit", r) : r(null)));
  await cleanup(tmp);
});

const send = (message: object) => server.stdin.write(`${JSON.stringify(message)}\n`);
const lines = () => stdout.split("\n").filter((line) => line !== "");
const responded = (id: number) => lines().some((line) => (JSON.parse(line) as { id?: number }).id === id);

describe("MCP-5 stdout carries only JSON-RPC", () => {
  it("MCP-5 every stdout line is JSON-RPC while the project writes to console.log, process.stdout and console.error", async () => {
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    await waitFor(() => responded(1), 60_000);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "noisy", arguments: {} } });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "noisy_fail", arguments: {} } });
    await waitFor(() => responded(2) && responded(3), 60_000);
    // The project's own fake JSON-RPC line (id 999) must not appear on stdout either.
    await waitFor(() => stderr.includes(`console.info ${FAKE_SECRET}`), 10_000);
    const messages = lines().map((line) => JSON.parse(line) as { jsonrpc: string; id?: number });
    expect(messages.every((message) => message.jsonrpc === "2.0")).toBe(true);
    expect(messages.map((message) => message.id)).toEqual([1, 2, 3]);
    expect(stdout).not.toContain(FAKE_SECRET);
    expect(stdout).not.toContain("module loaded");
    for (const noise of ["console.log", "stdout.write", "console.error", "console.info"]) expect(stderr).toContain(`${noise} ${FAKE_SECRET}`);
    expect(stderr).toContain('"id":999');
  });
});

describe("MCP-5 a client that closes stdin at once", () => {
  it("MCP-5 ends the server quietly with exit 0, even while the first worker is still loading (no load failure reported)", async () => {
    const quiet = spawn(process.execPath, [...CLI_SOURCE, "mcp", KITCHEN, "--data-dir", join(tmp, "closed-at-once")], { cwd: REPO, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    quiet.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    quiet.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolveExit) => quiet.once("exit", resolveExit));
    expect(code).toBe(0);
    expect(out).toBe("");
    expect(err).not.toMatch(/killed by SIGKILL|does not load|cannot load/);
  });
});
