// DX-11: the demo (`npm run demo`) leaves a session to look at: it keeps its store in a named
// folder and ends by printing the one command that opens it in the run viewer. The test runs the
// demo as `npm run demo` does (it imports the built package: `npm run build` first), runs the
// printed command as written (the built CLI standing in for `npx steamharness`) and asks the
// viewer's catalog (GET /api/projects) for the demo's conversation.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { CLI_DIST, cleanEnv, cleanup, ensureViewerBuilt, REPO, tempDir } from "../cli/helpers.js";

const TSX = pathToFileURL(join(REPO, "node_modules/tsx/dist/loader.mjs")).href;

let work: string;

beforeAll(async () => {
  if (!existsSync(CLI_DIST) || !existsSync(join(REPO, "dist/index.js"))) throw new Error("dist/ is missing: the demo imports the built package; run `npm run build` first");
  await ensureViewerBuilt();
  work = await tempDir("sh-dx11-");
}, 120_000);

afterAll(async () => {
  await cleanup(work);
});

/** Runs the demo in `cwd` (extra arguments as after `npm run demo --`). */
function runDemo(cwd: string, args: string[] = []) {
  const env = cleanEnv();
  return spawnSync(process.execPath, ["--import", TSX, join(REPO, "examples/demo.ts"), ...args], { cwd, env, encoding: "utf8", timeout: 180_000 });
}

/** Starts the printed `npx steamharness …` line with the built CLI; resolves the viewer's URL. */
function startViewer(args: string[], cwd: string): Promise<{ child: ChildProcess; url: URL }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_DIST, ...args, "--port", "0"], { cwd, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(output);
      if (found) resolve({ child, url: new URL(found[1]!) });
    };
    child.stdout!.on("data", seen);
    child.stderr!.on("data", seen);
    child.once("exit", (code) => reject(new Error(`view exited (${code}): ${output}`)));
  });
}

describe("DX-11 the demo leaves a viewable session", () => {
  it("DX-11 the demo's last line is a view command whose store lists the demo's session; a rerun replaces its folder", async () => {
    const demo = runDemo(work);
    if (demo.status !== 0) throw new Error(`demo exited ${demo.status}\n${demo.stdout}\n${demo.stderr}`);
    const lines = demo.stdout.trimEnd().split("\n");
    const command = lines.at(-1)!.trim();
    expect(command).toBe("npx steamharness view --store .steamharness-demo/store");
    expect(existsSync(join(work, ".steamharness-demo", "store", "agents"))).toBe(true);
    const { child, url } = await startViewer(command.split(/\s+/).slice(2), work);
    try {
      const response = await fetch(new URL("/api/projects", url.origin), { headers: { "x-steamharness-token": url.searchParams.get("token")! } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { projects: Array<{ projectId: string; conversations: Array<{ conversationId: string | null; sessions: unknown[] }> }> };
      const conversation = body.projects.find((entry) => entry.projectId === "demo")?.conversations.find((entry) => entry.conversationId === "demo-conversation");
      expect(conversation?.sessions.length).toBeGreaterThan(0);
    } finally {
      child.kill("SIGTERM");
    }
    // A second run starts from a fresh folder and prints the same answer.
    const again = runDemo(work);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("final answer: Done: NOTES.md follows the style guide and the request is recorded in KV.\n");
  }, 400_000);

  it("DX-11 a folder the demo did not make is left alone (exit 2)", () => {
    const mine = join(work, "mine");
    mkdirSync(mine);
    writeFileSync(join(mine, "keep.txt"), "user data");
    const demo = runDemo(work, ["mine"]);
    expect(demo.status).toBe(2);
    expect(demo.stderr).toMatch(/is not a demo folder/);
    expect(existsSync(join(mine, "keep.txt"))).toBe(true);
  }, 60_000);
});
