/**
 * A resident agent session across two processes, offline (HOST-1 … HOST-5):
 *
 *   1. this process opens a host, submits a task and suspends while a tool is still working;
 *   2. a second process reopens the host with `resume: true`: it continues the task from its
 *      checkpoints without resubmitting the message, then starts a long follow-up;
 *   3. this process stops the follow-up: a `cancel` command through the durable inbox, then
 *      `cancelAgentConversation`, so that no restart revives it.
 *
 *   node --import tsx examples/session-host.ts
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "steamharness";
import { cancelAgentConversation, controlAgentSession, createAgentSessionHost, type AgentSessionHostOptions } from "steamharness/agent";
import { createSqliteSessionBackend } from "steamharness/sqlite";
import { createOfflineModel } from "steamharness/testing";

const conversationId = "example-conversation";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tool that works until `<dir>/<name>.release` appears (or it is stopped). */
function slowTool(dir: string): AgentTool {
  return {
    name: "gather",
    label: "Gather",
    description: "Gathers material for a report; takes a while.",
    parameters: Type.Object({ topic: Type.String() }),
    replay: "safe",
    async execute(_id, params, signal) {
      const { topic } = params as { topic: string };
      writeFileSync(path.join(dir, `${topic}.started`), "");
      while (!existsSync(path.join(dir, `${topic}.release`))) {
        if (signal?.aborted) throw new Error("stopped");
        await pause(10);
      }
      return { content: [{ type: "text", text: `Material about ${topic}: three sources.` }] };
    },
  };
}

function hostOptions(dir: string, resume: boolean): AgentSessionHostOptions {
  // The offline model answers by the number of assistant messages already in the conversation.
  const models = createOfflineModel({
    steps: [
      { text: "Let me gather material first.", toolCalls: [{ id: "g1", name: "gather", arguments: { topic: "report" } }] },
      { text: "The report is ready: three sources, summarised." },
      { text: "Starting the long follow-up.", toolCalls: [{ id: "g2", name: "gather", arguments: { topic: "follow-up" } }] },
      { text: "Follow-up done." },
    ],
  });
  return {
    projectId: "example",
    agentStoreDir: path.join(dir, "agents"),
    models,
    workdir: dir,
    toolCatalog: [{ id: "gather", autoApprove: true }],
    createTools: () => [slowTool(dir)],
    inboxPollMs: 20,
    resume,
  };
}

async function waitFor(file: string): Promise<void> {
  while (!existsSync(file)) await pause(10);
}

/** Step 2, in the second process. */
async function secondProcess(dir: string): Promise<void> {
  const host = await createAgentSessionHost(conversationId, hostOptions(dir, true));
  let answer = "";
  host.subscribe((chunk) => {
    if (chunk.type === "add" && chunk.item.metadata.partType === "text" && typeof chunk.item.content === "string") answer += chunk.item.content;
    if (chunk.type === "delta") answer += chunk.delta;
  });
  await host.idle();
  const [task] = await host.tasks();
  console.log(`[second process] resumed ${task!.taskId}: ${task!.status}; text: ${JSON.stringify(answer)}`);
  const { taskId } = (await host.control({ type: "submit", prompt: "Now a long follow-up" })) as { taskId: string };
  await waitFor(path.join(dir, "follow-up.started"));
  console.log("READY");
  const stopped = await host.waitForTask(taskId);
  console.log(`[second process] follow-up ${stopped.status}`);
  await host.close();
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "session-host-example-"));
  try {
    // Step 1: submit, then suspend while the tool works.
    const host = await createAgentSessionHost(conversationId, hostOptions(dir, false));
    const submitted = await controlAgentSession(conversationId, { type: "submit", prompt: "Write the report" });
    console.log("[first process] submitted", submitted);
    await waitFor(path.join(dir, "report.started"));
    await host.suspend();
    console.log("[first process] suspended; task kept as", (await readTasks(dir)).map((task) => `${task.taskId}: ${task.status}`).join(", "));
    writeFileSync(path.join(dir, "report.release"), "");

    // Step 2: the second process resumes.
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--second", dir], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const ready = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on("line", (line) => {
        if (line === "READY") resolve();
        else console.log(line);
      });
    });
    await ready;

    // Step 3: stop the follow-up: persist the intent and stop the worker, then clear the conversation.
    const cancelled = await controlAgentSession(conversationId, { type: "cancel" }, { agentStoreDir: path.join(dir, "agents") });
    console.log("[first process] cancel command answered:", cancelled);
    console.log("[first process] cancelAgentConversation:", await cancelAgentConversation({ agentStoreDir: path.join(dir, "agents"), conversationId }));
    const code = await exited;
    if (code !== 0) throw new Error(`the second process exited with ${code}`);
    const final = await readTasks(dir);
    if (final.map((task) => task.status).join() !== "completed,cancelled") throw new Error(`unexpected task states ${JSON.stringify(final)}`);
    console.log("[first process] final tasks:", final.map((task) => `${task.prompt} → ${task.status}`).join("; "));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function readTasks(dir: string) {
  // A host opened later would see the same record; here it is read directly for the printout.
  const backend = createSqliteSessionBackend({ agentStoreDir: path.join(dir, "agents") });
  const store = await backend.openHostStore(conversationId, { create: false });
  try {
    return (await store?.listTasks()) ?? [];
  } finally {
    await store?.close();
    await backend.close();
  }
}

const secondIndex = process.argv.indexOf("--second");
await (secondIndex >= 0 ? secondProcess(process.argv[secondIndex + 1]!) : main());
process.exit(0);
