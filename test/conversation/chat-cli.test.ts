import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { createChatRenderer } from "../../src/adapters/driving/chat/chat-renderer.js";
import { createProgram } from "../../src/compose/cli.js";
import { CLI_SOURCE } from "../cli/helpers.js";
import { bundledProject } from "../fixtures/bundled-fixture.js";
import type { OutputItemStreamChunk } from "../../src/domain/output-items.js";
import { createSurfaceServices } from "../../src/compose/surface-services.js";

// Drives the real chat command in a pseudo-terminal (tmux): typed lines, Enter, Ctrl-C. Through
// the steamharness CLI (the built bin when dist/ is fresh) once its program registers `chat`;
// until then through a commander program that registers the same command
// (test/conversation/fixtures/chat-cli.ts).
const entry = createProgram(createSurfaceServices()).commands.some((c) => c.name() === "chat") ? CLI_SOURCE : ["--import", "tsx", "test/conversation/fixtures/chat-cli.ts"];
const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
const sessions: string[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "chat-data-"));
const workdir = mkdtempSync(join(tmpdir(), "chat-work-"));
// The scripted assistant (test/conversation/fixtures/chat-assistant) with its entry bundled, so
// each chat process loads it as plain JavaScript instead of compiling it and the sources it
// imports through tsx.
const projects = mkdtempSync(join(tmpdir(), "chat-projects-"));
const assistant = bundledProject("test/conversation/fixtures/chat-assistant", join(projects, "chat-assistant"));

function start(conversationId: string, fresh = false): string {
  const name = `shchat-${process.pid}-${sessions.length}`;
  sessions.push(name);
  const command = [
    `cd ${JSON.stringify(process.cwd())}`,
    `CHAT_TEST_WORKDIR=${JSON.stringify(workdir)} ${[process.execPath, ...entry].map((part) => JSON.stringify(part)).join(" ")} chat ${JSON.stringify(assistant)} --data-dir ${JSON.stringify(dataDir)} --conversation ${conversationId}${fresh ? " --new" : ""}`,
    "echo CHAT-EXITED=$?",
    "sleep 60",
  ].join("; ");
  tmux("new-session", "-d", "-s", name, "-x", "150", "-y", "80", command);
  return name;
}

const screen = (name: string) => tmux("capture-pane", "-p", "-J", "-t", name, "-S", "-1000");
const count = (text: string, needle: string) => text.split(needle).length - 1;

async function waitFor(name: string, needle: string, times = 1): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const text = screen(name);
    if (count(text, needle) >= times) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${JSON.stringify(needle)} ×${times}; screen:\n${screen(name)}`);
}

function type(name: string, text: string): void {
  tmux("send-keys", "-t", name, "-l", text);
  tmux("send-keys", "-t", name, "Enter");
}

afterAll(() => {
  for (const name of sessions) {
    try {
      tmux("kill-session", "-t", name);
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(workdir, { recursive: true, force: true });
  // Session history is project-local (.workflow/agents in the project folder, SES-1).
  rmSync(projects, { recursive: true, force: true });
});

describe("CONV-2 steamharness chat in a pseudo-terminal", () => {
  it("CONV-2 a scripted conversation: an approval, a question, Ctrl-C cancelling a turn, a restart and a resume", async () => {
    const conversation = `conv-${process.pid}`;
    const first = start(conversation, true);
    await waitFor(first, "you> ");
    expect(screen(first)).toContain(`conversation ${conversation} (resume with --conversation ${conversation})`);

    type(first, "please note the roadmap");
    await waitFor(first, "approve? [y/N]");
    type(first, "y");
    await waitFor(first, "Done: write finished.");
    expect(screen(first)).toMatch(/Writing the note\.\n[\s\S]*⏺ write note\.txt ✓/);
    expect(readFileSync(join(workdir, "note.txt"), "utf8")).toBe("roadmap");
    // The ring line is drawn after the answer text: wait for it instead of racing the renderer.
    expect(await waitFor(first, "◔ context")).toMatch(/◔ context \d[\d,]* \/ 128,000 tokens/);

    type(first, "ask me something");
    await waitFor(first, "answer> ");
    type(first, "blue");
    await waitFor(first, "You chose blue.");

    type(first, "please note it again");
    await waitFor(first, "approve? [y/N]", 2);
    tmux("send-keys", "-t", first, "C-c");
    await waitFor(first, "⊘ turn cancelled");
    await waitFor(first, "you> ", 4);

    type(first, "/exit");
    await waitFor(first, "CHAT-EXITED=0");
    // SES-1: the durable session history is project-local, under <project>/.workflow/agents.
    const agents = join(assistant, ".workflow", "agents");
    expect(readdirSync(agents).some((folder) => folder.startsWith(`${conversation}-`))).toBe(true);

    const second = start(conversation);
    await waitFor(second, "you> ");
    type(second, "do you remember?");
    await waitFor(second, "I remember: you chose blue before the restart.");
    await waitFor(second, "you> ", 2);
    tmux("send-keys", "-t", second, "C-c");
    await waitFor(second, "CHAT-EXITED=0");
  }, 120_000);
});

describe("CONV-2 chat recovery", () => {
  it("CONV-2 a chat killed (SIGKILL) while a turn waits for approval recovers that turn on reopening", async () => {
    const conversation = `recover-${process.pid}`;
    const first = start(conversation, true);
    await waitFor(first, "you> ");
    type(first, "please note the recovery");
    await waitFor(first, "approve? [y/N]");
    const shell = tmux("display-message", "-p", "-t", first, "#{pane_pid}").trim();
    const node = execFileSync("pgrep", ["-P", shell], { encoding: "utf8" }).trim().split("\n")[0]!;
    process.kill(Number(node), "SIGKILL");
    await waitFor(first, "CHAT-EXITED=137");

    const second = start(conversation);
    await waitFor(second, "↺ recovering the interrupted turn: please note the recovery");
    await waitFor(second, "approve? [y/N]");
    type(second, "y");
    await waitFor(second, "Done: write finished.");
    await waitFor(second, "you> ");
    type(second, "/exit");
    await waitFor(second, "CHAT-EXITED=0");

    // Recovered once: a third start finds nothing to recover.
    const third = start(conversation);
    await waitFor(third, "you> ");
    expect(screen(third)).not.toContain("recovering");
    type(third, "/exit");
    await waitFor(third, "CHAT-EXITED=0");
  }, 120_000);
});

/** Runs the CLI with `stdin` piped in; resolves its exit code and stdout. */
function cli(args: string[], stdin: string, env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("JEST") && key !== "NODE_OPTIONS" && key !== "OPENAI_API_KEY"));
  return new Promise((resolveRun) => {
    const child = execFile(process.execPath, [...CLI_SOURCE, ...args], { env: { ...base, ...env }, timeout: 60_000 }, (error, stdout) =>
      resolveRun({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout }),
    );
    child.stdin?.end(stdin);
  });
}

describe("DX-4 the chat banner names the model", () => {
  const noModel = "test/conversation/fixtures/no-model-assistant";

  it("DX-4 a project's own model is named in the banner", async () => {
    const { code, stdout } = await cli(["chat", assistant, "--data-dir", dataDir], "/exit\n", { CHAT_TEST_WORKDIR: workdir });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^steamharness chat — chat-assistant\nmodel: offline\/offline-scripted \(given by the project\)\nconversation /);
  }, 60_000);

  it("DX-13 the chat banner names the configuration store it reads", async () => {
    const { code, stdout } = await cli(["chat", assistant, "--data-dir", dataDir], "/exit\n", { CHAT_TEST_WORKDIR: workdir });
    expect(code).toBe(0);
    expect(stdout).toContain(`\n[steamharness] configuration store: local ${join(resolve(dataDir), "configurations.sqlite")}\n`);
  }, 60_000);

  it("DX-4 without a model the banner says how to configure one, and following it names the configured model", async () => {
    const data = mkdtempSync(join(tmpdir(), "chat-banner-"));
    try {
      const before = await cli(["chat", noModel, "--data-dir", data], "/exit\n");
      expect(before.code).toBe(0);
      expect(before.stdout).toContain("model: none configured\nTo configure one, either:");
      expect(before.stdout).toContain(`steamharness config export ${noModel} -o config.json`);
      expect(before.stdout).toContain(`steamharness config import ${noModel} config.json`);

      // Follow the printed steps literally: export, add the shown configuration, import.
      const exported = await cli(["config", "export", noModel, "--data-dir", data], "");
      const document = JSON.parse(exported.stdout) as { currentConfigurationId: string | null; configurations: unknown[] };
      const shown = before.stdout.split("\n").find((line) => line.trim().startsWith('{ "configurationId": "default"'))!;
      document.currentConfigurationId = "default";
      document.configurations.push(JSON.parse(shown));
      const file = join(data, "config.json");
      writeFileSync(file, JSON.stringify(document));
      expect((await cli(["config", "import", noModel, file, "--data-dir", data], "")).code).toBe(0);

      const withoutKey = await cli(["chat", noModel, "--data-dir", data], "/exit\n");
      expect(withoutKey.stdout).toContain('model: openai/gpt-4.1-mini (entry "main" of STEAMHARNESS_AGENT_MODELS)\n  ⚠ no API key: set the environment variable OPENAI_API_KEY\n');
      const withKey = await cli(["chat", noModel, "--data-dir", data], "/exit\n", { OPENAI_API_KEY: "sk-test-not-used" });
      expect(withKey.stdout).toContain('model: openai/gpt-4.1-mini (entry "main" of STEAMHARNESS_AGENT_MODELS)\nconversation ');
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("DX-18 chat prompt commands and --conversation", () => {
  it("DX-18 /help lists the prompt commands; an unknown slash command is refused with a hint and never reaches the model; //text is sent as /text", async () => {
    const { code, stdout } = await cli(["chat", assistant, "--data-dir", dataDir], "/help\n/foo bar\n//etc is a path\n/exit\n", { CHAT_TEST_WORKDIR: workdir });
    expect(code).toBe(0);
    expect(stdout).toContain("/help lists these commands\n/compact [instructions] compacts the conversation\n/exit ends the chat\n");
    expect(stdout).toContain("unknown command /foo (not sent to the model); /help lists the commands, //text sends /text as a prompt");
    // The scripted model answers every prompt it gets with "Hello! You said: …": only the escaped line reached it.
    expect(stdout.match(/Hello! You said: [^\n]*/g)).toEqual(["Hello! You said: /etc is a path"]);
  }, 60_000);

  it("DX-18 --conversation naming a conversation that does not exist exits 2 with one line; --new starts it; --new on an existing one exits 2", async () => {
    const agents = mkdtempSync(join(tmpdir(), "chat-conversations-"));
    const chat = (stdin: string, ...args: string[]) => cliWithStderr(["chat", assistant, "--data-dir", dataDir, "--agent-store-dir", agents, ...args], stdin, { CHAT_TEST_WORKDIR: workdir });
    try {
      const typo = await chat("hello\n/exit\n", "--conversation", "no-such-conversation");
      expect(typo.code).toBe(2);
      expect(typo.stdout).toBe("");
      expect(typo.stderr.trim().split("\n")).toEqual([expect.stringMatching(/no conversation no-such-conversation in .*: add --new to start it, or leave out --conversation for a new one$/)]);
      expect(readdirSync(agents)).toEqual([]); // nothing was started

      const started = await chat("hello\n/exit\n", "--conversation", "dx18", "--new");
      expect(started.code).toBe(0);
      expect(started.stdout).toContain("Hello! You said: hello");
      const continued = await chat("/exit\n", "--conversation", "dx18");
      expect(continued.code).toBe(0);
      expect(continued.stdout).toContain("conversation dx18 (resume with --conversation dx18)");
      const again = await chat("/exit\n", "--conversation", "dx18", "--new");
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/conversation dx18 already exists in .*: leave out --new to continue it/);
    } finally {
      rmSync(agents, { recursive: true, force: true });
    }
  }, 90_000);
});

/** As {@link cli}, with stderr. */
function cliWithStderr(args: string[], stdin: string, env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("JEST") && key !== "NODE_OPTIONS" && key !== "OPENAI_API_KEY"));
  return new Promise((resolveRun) => {
    const child = execFile(process.execPath, [...CLI_SOURCE, ...args], { env: { ...base, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolveRun({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

describe("CONV-2 chat renderer", () => {
  it("CONV-2 renders answer text, tool rows, retry and compaction notes, plan cards, errors and the ring; never the session snapshot", () => {
    let text = "";
    const renderer = createChatRenderer({ write: (t) => (text += t) });
    const chunks: OutputItemStreamChunk[] = [
      { type: "add", item: { id: "ring", display: { type: "ring", placement: "composer-right" }, content: { value: 10, total: 1000, unit: "tokens" }, metadata: {} } },
      { type: "add", item: { id: "s", content: { secret: "snapshot" }, metadata: { kind: "agent-session" } } },
      { type: "add", item: { id: "t1", content: "", metadata: { kind: "agent-part", partType: "text" } } },
      { type: "delta", id: "t1", delta: "Let me " },
      { type: "delta", id: "t1", delta: "look." },
      { type: "done", id: "t1" },
      { type: "add", item: { id: "tool", content: { tool: "grep", arguments: { pattern: "TODO" }, status: "pending" }, metadata: { kind: "agent-part", partType: "tool", tool: "grep" } } },
      { type: "replace", id: "tool", content: { tool: "grep", arguments: { pattern: "TODO" }, status: "completed" } },
      { type: "done", id: "tool" },
      { type: "add", item: { id: "r", content: { kind: "dropped", label: "Retry 1 / 10", message: "connection dropped" }, metadata: { kind: "agent-part", partType: "retry" } } },
      { type: "done", id: "r" },
      { type: "add", item: { id: "c", content: "summarised 12 messages", metadata: { kind: "agent-part", partType: "compaction" } } },
      { type: "done", id: "c" },
      { type: "add", item: { id: "p", content: "1. Read\n2. Fix", metadata: { kind: "agent-notice", plan: true } } },
      { type: "done", id: "p" },
      { type: "replace", id: "ring", content: { value: 420, total: 1000, unit: "tokens" } },
      { type: "add", item: { id: "e", content: "model unavailable", metadata: { kind: "agent-error" } } },
      { type: "done", id: "e" },
    ];
    for (const chunk of chunks) renderer.push(chunk);
    renderer.endTurn();
    expect(text).toBe(
      [
        "Let me look.",
        "⏺ grep TODO ✓",
        "↻ Retry 1 / 10 — connection dropped",
        "⋯ context compacted: summarised 12 messages",
        "┌─ plan ─────────────",
        "│ 1. Read",
        "│ 2. Fix",
        "└────────────────────",
        "✗ error: model unavailable",
        "◔ context 420 / 1,000 tokens",
        "",
      ].join("\n"),
    );
    expect(text).not.toContain("snapshot");
  });
});
