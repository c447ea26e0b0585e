// DX-6: `steamharness view <project-dir>` shows a project's sessions with no other flag, and the
// viewer lines of README.md and docs/viewer.md work as written: they are read from the pages,
// run in a fresh folder (its own HOME) after a real `steamharness chat`, and the session the chat
// wrote must be in the viewer's session list (GET /api/projects). VIEW-8: the list's times are the
// store's (the last event's time), not file modification times.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createSqliteSessionCatalog } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-catalog.js";
import { CLI_DIST, cleanEnv, cleanup, DIST_IS_FRESH, ensureViewerBuilt, REPO, runCli, tempDir } from "../cli/helpers.js";
import { openStorage, runAgent } from "./fixtures.js";

const ASSISTANT_ID = "c0ffee00-4a2b-4c3d-8e5f-6a7b8c9d0e1f";
// The built bin when dist/ is fresh (as in CI; test/cli/helpers.ts), else the CLI from the
// sources; started in a folder outside the repository (tsx named by path).
const CLI = DIST_IS_FRESH ? [CLI_DIST] : ["--import", pathToFileURL(join(REPO, "node_modules/tsx/dist/loader.mjs")).href, join(REPO, "src/cli.ts")];

/** The `npx steamharness …` lines of the first `sh` block after `heading` on `page`, as argument lists. */
function commandLines(page: string, heading: string): string[][] {
  const text = readFileSync(join(REPO, page), "utf8");
  const section = text.slice(text.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line.startsWith("npx steamharness "))
    .map((line) => line.slice("npx steamharness ".length).split(/\s+/));
}

let work: string;
const env = () => cleanEnv({ HOME: join(work, "home") });

/**
 * A folder as a newcomer has it: the examples, and `steamharness` installed — this checkout's
 * build when dist/ is fresh (a link to the checkout, whose package.json exports dist/, as
 * node_modules/steamharness is in the repository), else its sources (then every chat compiles
 * them through tsx).
 */
function prepareFolder(): void {
  mkdirSync(join(work, "home"));
  cpSync(join(REPO, "examples"), join(work, "examples"), { recursive: true, filter: (source) => !source.includes(".workflow") });
  const pkg = join(work, "node_modules", "steamharness");
  mkdirSync(join(work, "node_modules"));
  if (DIST_IS_FRESH) {
    symlinkSync(REPO, pkg);
    return;
  }
  mkdirSync(pkg);
  symlinkSync(join(REPO, "src"), join(pkg, "src"));
  // Every subpath the package exports (ARCH-11 put names on several), each on its source entry.
  const subpaths = Object.keys((JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { exports: Record<string, unknown> }).exports).filter((key) => key !== "./package.json");
  const exports = Object.fromEntries(subpaths.map((key) => [key, key === "." ? "./src/index.ts" : `./src/${key.slice(2)}.ts`]));
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "steamharness", type: "module", exports }));
}

/** Runs one CLI line in the folder, typing `input` (then closing stdin). */
function runLine(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: work, env: env(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

/** Starts a `view` line and resolves its URL once printed. */
function startViewer(args: string[], stderr: string[] = []): Promise<{ child: ChildProcess; url: URL }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: work, env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(output);
      if (found) resolve({ child, url: new URL(found[1]!) });
    };
    child.stdout!.on("data", seen);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr.push(chunk.toString());
      seen(chunk);
    });
    child.once("exit", (code) => reject(new Error(`view exited (${code}): ${output}`)));
  });
}

interface ProjectsBody {
  projects: Array<{ projectId: string; conversations: Array<{ conversationId: string | null; sessions: Array<{ sessionKey: string; updatedAt: number }> }> }>;
}

async function listed(url: URL): Promise<ProjectsBody> {
  const response = await fetch(new URL("/api/projects", url.origin), { headers: { "x-steamharness-token": url.searchParams.get("token")! } });
  expect(response.status).toBe(200);
  return (await response.json()) as ProjectsBody;
}

beforeAll(async () => {
  await ensureViewerBuilt();
  work = await tempDir("sh-dx6-");
  prepareFolder();
}, 120_000);

afterAll(async () => {
  await cleanup(work);
});

describe("DX-6 the documented viewer lines show the session a chat wrote", () => {
  it.each([
    ["README.md", "## Browse runs in the browser"],
    ["docs/viewer.md", "# The run viewer"],
  ])("DX-6 %s: its chat line, then its view line, list the chat's conversation", async (page, heading) => {
    const lines = commandLines(page, heading);
    expect(lines.map((args) => args[0])).toEqual(["chat", "view"]);
    const [chatArgs, viewArgs] = lines as [string[], string[]];
    const chat = await runLine(chatArgs, "hello\n/exit\n");
    expect(chat.code).toBe(0);
    const conversation = /conversation ([\w-]+) \(resume with/.exec(chat.stdout)?.[1];
    expect(conversation).toBeDefined();
    const { child, url } = await startViewer(viewArgs);
    try {
      const body = await listed(url);
      const project = body.projects.find((entry) => entry.projectId === ASSISTANT_ID);
      expect(project?.conversations.map((entry) => entry.conversationId)).toContain(conversation);
      expect(project!.conversations.find((entry) => entry.conversationId === conversation)!.sessions.length).toBeGreaterThan(0);
    } finally {
      child.kill("SIGTERM");
    }
  }, 240_000);
});

describe("DX-6 view <project-dir>", () => {
  it("DX-6 --agent-store-dir alone names the project's session folder and needs no --store", async () => {
    await runLine(["chat", "examples/assistant"], "hello\n/exit\n");
    const { child, url } = await startViewer(["view", "--agent-store-dir", "examples/assistant/.workflow/agents"]);
    try {
      expect((await listed(url)).projects.map((entry) => entry.projectId)).toEqual([ASSISTANT_ID]);
    } finally {
      child.kill("SIGTERM");
    }
  }, 240_000);

  it("DX-6 DX-18 a folder that is not a project is refused with one line (exit 2); a project without sessions yet opens on an empty list and says how to fill it, by project kind", async () => {
    const plain = join(work, "plain");
    mkdirSync(plain);
    const notProject = await runCli(["view", plain], { env: env(), cwd: work, argsPrefix: CLI });
    expect(notProject.code).toBe(2);
    expect(notProject.stderr).toMatch(/^steamharness: .*package\.json[^\n]*\n$/);
    const stderr: string[] = [];
    const { child, url } = await startViewer(["view", "examples/workflow-project"], stderr);
    try {
      // DX-18: a workflow project is told to run or serve it, never to `chat` it (which it refuses).
      expect(stderr.join("")).toMatch(/steamharness: no sessions of .* yet .*`npx steamharness run examples\/workflow-project <entrypoint>`.*`npx steamharness mcp examples\/workflow-project`/);
      expect(stderr.join("")).not.toContain("chat");
      expect((await listed(url)).projects).toEqual([]);
    } finally {
      child.kill("SIGTERM");
    }
    const conversation = join(work, "fresh-conversation");
    mkdirSync(conversation);
    writeFileSync(join(conversation, "package.json"), JSON.stringify({ name: "fresh", id: "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6", projectType: "conversation" }));
    const chatHint: string[] = [];
    const viewer = await startViewer(["view", "fresh-conversation"], chatHint);
    try {
      expect(chatHint.join("")).toMatch(/no sessions of fresh yet .*run `npx steamharness chat fresh-conversation`/);
    } finally {
      viewer.child.kill("SIGTERM");
    }
  });
});

describe("VIEW-8 the session list's times come from the store", () => {
  it("VIEW-8 a session's updatedAt is its last event's time, whatever the file times say", async () => {
    const directory = join(work, "store-times");
    const storage = openStorage(directory);
    try {
      expect((await runAgent(storage, { runId: "run-1", prompt: "hi", steps: [{ text: "hello" }] })).status).toBe("completed");
      const store = (await storage.sessions.openUnleased({ address: { projectId: "project-demo", conversationId: "conv-plan", sessionKey: "agent" }, create: false }))!;
      const lastAt = (await store.readAfter(0, { limit: 10_000 })).at(-1)!.at;
      await store.close();
      // A reader opening the file (the viewer creates the -wal) moves its mtime; the list must not follow.
      const later = new Date(Date.now() + 3_600_000);
      for (const name of readdirSync(storage.agentStoreDir, { recursive: true, encoding: "utf8" })) utimesSync(join(storage.agentStoreDir, name), later, later);
      const catalog = createSqliteSessionCatalog({ agentStoreDir: storage.agentStoreDir });
      const [entry] = await catalog.list();
      await catalog.close();
      expect(entry!.updatedAt).toBe(lastAt);
    } finally {
      await storage.close();
    }
  });
});
