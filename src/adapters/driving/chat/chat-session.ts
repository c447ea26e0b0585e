/**
 * `steamharness chat` (CONV-2): runs a conversation project in the terminal. Each line typed is
 * one turn of the project's agent; output streams through the chat renderer; tool approvals,
 * plan decisions and `ask_user` questions are answered at the prompt; Ctrl-C cancels the running
 * turn (and at the prompt, ends the chat). The conversation's history always lives in SQLite in the
 * project, `<project>/.workflow/agents` (SES-1, SES-10), so `--conversation <id>` continues it
 * after a restart. With `conversation.recovery.enabled` a
 * turn interrupted by a crash or kill is run again on reopening, under its original run id, so
 * committed work is replayed, not redone (SES-3).
 */
import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { createAgentNode } from "../../../app/agent-node/create-agent-node.js";
import type { AgentNodeOptions } from "../../../app/agent-node/create-agent-node.js";
import { openConversationProject } from "../../../app/conversation/conversation-project.js";
import { createAgentConfigurationLoader } from "../../../domain/configuration/run-snapshot.js";
import { SteamharnessError, isSteamharnessError } from "../../../domain/errors.js";
import type { Storage } from "../../../ports/storage.js";
import { buildNodeContext, type NodeContextOptions } from "../../../app/node-context/node-context.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import { HOST_BRIDGE_TOKEN_ENV, HOST_BRIDGE_URL_ENV } from "../../../domain/capabilities/host-bridge.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { CHAT_COMMANDS, chatCommandsHelp, parsePromptLine } from "./prompt-commands.js";
import { currentModelSource, describeChatModel } from "./chat-model.js";
import { createChatRenderer } from "./chat-renderer.js";
import { createLineReader } from "./line-reader.js";
import { createTerminalPorts } from "./terminal-ports.js";

/** Persistent-value name prefix of a chat's running turn (by conversation id). */
const ACTIVE_TURN_PREFIX = "steamharness.chat.active-turn.";

function isActiveTurn(value: unknown): value is { runId: string; prompt: string } {
  return typeof value === "object" && value !== null && typeof (value as { runId?: unknown }).runId === "string" && typeof (value as { prompt?: unknown }).prompt === "string";
}

/** Options of {@link runChat}. */
export interface ChatOptions {
  projectDir: string;
  /** Continue this conversation (default: a new one, whose id is printed); it must exist unless `newConversation`. */
  conversationId?: string;
  /** Start `conversationId` as a new conversation (refused when it exists). */
  newConversation?: boolean;
  /** Root of local data (default `~/.steamharness`). */
  dataDir?: string;
  /** Where the configuration server login (`workflow-auth.json`, CFG-4) is read; default `dataDir`. */
  authDir?: string;
  /** Where the conversation's sessions are kept (default `<projectDir>/.workflow/agents`, SES-10). */
  agentStoreDir?: string;
  input?: Readable;
  output?: Writable;
  /** Environment for `apiKeyRef` resolution (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Starts the loopback host bridge that serves the configuration stores to this chat, so the
   * project's host-configuration capability (CAP-8) works; handed in by the composition root
   * (ARCH-9: the chat imports no other surface). Skipped when absent or when the bridge variables
   * are already set by an enclosing host.
   */
  hostBridge?: StartHostBridge;
}

/** Starts a host bridge over the given stores: the part of `startHostBridgeServer` the chat uses. */
export type StartHostBridge = (options: { stores: Partial<Record<"local" | "server", ProjectConfigurationStore>>; defaultProjectId: string }) => Promise<{ url: string; env: Record<string, string>; close(): Promise<void> }>;

/**
 * Runs the chat until the input ends, `/exit` is typed or Ctrl-C is pressed at the prompt.
 * `/compact [instructions]` compacts the conversation (SES-11).
 *
 * @example
 * await runChat({ projectDir: "./examples/assistant", conversationId: process.argv[2] }, services);
 */
export async function runChat(options: ChatOptions, services: SurfaceServices): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const out = { write: (text: string) => void output.write(text) };
  const project = await openConversationProject(options.projectDir, services.textFiles);
  const dataDir = resolve(options.dataDir ?? join(homedir(), ".steamharness"));
  const env = options.env ?? process.env;
  const agentOptions: AgentNodeOptions = { ...project.executor.agent };
  // CONV-3: a project whose agent runs through a resident session host reopens it with
  // `resume: true` on each start, so what an earlier chat left is recovered and its turns listed.
  if (agentOptions.session) agentOptions.session = { ...agentOptions.session, resume: agentOptions.session.resume ?? true };
  const resolveApiKey = (ref: string) => env[ref];
  const runtime = await services.runtime();
  const createNodeContext = (contextOptions: NodeContextOptions) => buildNodeContext(contextOptions, runtime);
  // Without models of its own the project's turns read STEAMHARNESS_AGENT_MODELS from the local store.
  const fromStore = agentOptions.configuration === undefined && agentOptions.models === undefined;
  // DX-8: everything opened from here on is closed on the way out, also when a step throws (a
  // bridge left listening kept a chat with a bad project alive after its error line).
  const opened: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const close of opened.splice(0).reverse()) await close();
  };
  let session: ChatParts;
  try {
    // SES-10: a chat is a conversation, and a conversation's history is durable and project-local
    // (`.workflow/agents`) whatever the project declares; `durable.enabled` only gates recovery.
    // KV, knowledge and files live under the data dir, shared with the other local hosts.
    const agentStoreDir = services.sessionFolderOf(options.projectDir, options.agentStoreDir);
    const storage: Storage = await services.localStorage({ directory: join(dataDir, "projects", project.manifest.id), sessionFolder: agentStoreDir });
    opened.push(() => storage.close());
    if (options.conversationId !== undefined) await checkConversation(await services.localSessionCatalog(agentStoreDir), agentStoreDir, project.manifest.id, options.conversationId, options.newConversation ?? false);
    // CFG-4: the configuration server instead of the local store when a server login resolves.
    const choice = await services.projectConfiguration({ dataDir, env, ...(options.authDir === undefined ? {} : { authDir: resolve(options.authDir) }) });
    const configurations = choice.store;
    opened.push(() => configurations.close?.());
    const systemApiKey = choice.systemApiKey;
    const resolveSystemApiKey = systemApiKey === undefined ? undefined : () => systemApiKey;
    if (fromStore) agentOptions.configuration = createAgentConfigurationLoader({ store: configurations, clock: runtime.clock(), resolveApiKey, ...(resolveSystemApiKey ? { resolveSystemApiKey } : {}) });
    // The node checks the project's agent options (permission policy, models) before anything listens.
    const node = createAgentNode(agentOptions);
    // CONV-3: the hosts the node opens are closed on /exit, end of input and Ctrl-C (before the storage).
    opened.push(() => node.close());
    const modelLine = fromStore
      ? await currentModelSource(configurations, project.manifest.id, runtime.clock(), resolveApiKey, resolveSystemApiKey).then(
          (source) => describeChatModel(project.executor.agent, source, options.projectDir),
          (error: unknown) => `model: unknown — the configuration store could not be read: ${(error as Error)?.message ?? String(error)}`,
        )
      : describeChatModel(project.executor.agent, {}, options.projectDir);
    const bridge = await startChatBridge(options.hostBridge, { [choice.location]: configurations }, project.manifest.id);
    if (bridge) opened.push(() => bridge.close());
    // DX-13: which configuration store the chat reads, the banner's last line.
    const storeLine = await choice.describe();
    session = { storage, node, modelLine, storeLine };
  } catch (error) {
    await closeAll();
    throw error;
  }
  const { storage, node, modelLine, storeLine } = session;
  const conversationId = options.conversationId ?? randomUUID();
  const reader = createLineReader(input, output);
  let turn: AbortController | null = null;
  let closed = false;
  // Ctrl-C cancels the running turn; at the prompt it ends the chat.
  reader.onInterrupt(() => {
    if (turn) return turn.abort();
    closed = true;
    reader.close();
  });
  const ask = (question: string) => reader.ask(question, turn?.signal);
  const ports = createTerminalPorts(ask, out);
  const renderer = createChatRenderer(out);
  out.write(`steamharness chat — ${project.manifest.name ?? project.manifest.id}\n${modelLine}\nconversation ${conversationId} (resume with --conversation ${conversationId})\n${CHAT_COMMANDS}\n${storeLine}\n`);
  const recovery = project.executor.conversation.recovery.enabled;
  const journal = `${ACTIVE_TURN_PREFIX}${conversationId}`;
  const runTurn = async (prompt: string, runId: string) => {
    turn = new AbortController();
    // The turn is journalled while it runs, so a chat killed mid-turn can recover it (recovery.enabled).
    if (recovery) await storage.values.set(project.manifest.id, journal, { runId, prompt });
    const context = createNodeContext({
      projectId: project.manifest.id,
      conversationId,
      storage,
      runId,
      toolPermissions: ports.toolPermissions,
      userInput: ports.userInput,
      toolCatalog: [...project.executor.toolCatalog],
      signal: turn.signal,
    });
    try {
      for await (const chunk of node.stream({ prompt }, context)) renderer.push(chunk);
    } catch (error) {
      if (turn.signal.aborted || isSteamharnessError(error, "cancelled")) out.write("\n⊘ turn cancelled\n");
      else if (isSteamharnessError(error, "user_input_required")) out.write(`\n… waiting for input (${error.message})\n`);
      else if (!isSteamharnessError(error)) out.write(`\n✗ ${(error as Error)?.message ?? String(error)}\n`);
    } finally {
      turn = null;
      renderer.endTurn();
      // Finished, failed or cancelled: a persisted end is never retried.
      if (recovery) await storage.values.delete(project.manifest.id, journal);
    }
  };
  // CONV-3: a node with `session` opens its host before the first prompt, so a resumed host
  // recovers at once and the chat shows where the conversation stands.
  const openSessionHost = async () => {
    const context = createNodeContext({ projectId: project.manifest.id, conversationId, storage, runId: `open-${randomUUID()}`, toolPermissions: ports.toolPermissions, userInput: ports.userInput, toolCatalog: [...project.executor.toolCatalog], signal: new AbortController().signal });
    const host = await node.openSessionHost(context);
    if (host) out.write(describeResumedHost(((await host.snapshot()).content as { turns?: unknown[] }).turns ?? []));
  };
  // SES-11 `/compact [instructions]`: the session's model summarises the whole conversation.
  const compact = async (instructions: string) => {
    const runId = `compact-${randomUUID()}`;
    const context = createNodeContext({ projectId: project.manifest.id, conversationId, storage, runId, toolPermissions: ports.toolPermissions, userInput: ports.userInput, toolCatalog: [...project.executor.toolCatalog], signal: new AbortController().signal });
    try {
      const result = await node.compact({ runId, keepLast: 0, ...(instructions ? { instructions } : {}) }, context);
      for (const chunk of result.chunks) renderer.push(chunk);
      if (!result.compacted) out.write("⋯ nothing to compact yet\n");
    } catch (error) {
      out.write(`✗ compaction failed: ${(error as Error)?.message ?? String(error)}\n`);
    } finally {
      renderer.endTurn();
    }
  };
  try {
    await openSessionHost();
    const interrupted = recovery ? await storage.values.get(project.manifest.id, journal) : null;
    if (isActiveTurn(interrupted)) {
      out.write(`↺ recovering the interrupted turn: ${interrupted.prompt}\n`);
      await runTurn(interrupted.prompt, interrupted.runId);
    }
    while (!closed) {
      let line: string;
      try {
        line = (await reader.ask("you> ")).trim();
      } catch {
        break;
      }
      const typed = parsePromptLine(line);
      if (typed.kind === "exit") break;
      if (typed.kind === "help") out.write(chatCommandsHelp());
      else if (typed.kind === "unknown") out.write(`unknown command ${typed.command} (not sent to the model); /help lists the commands, //text sends /text as a prompt\n`);
      else if (typed.kind === "compact") await compact(typed.instructions);
      else if (typed.kind === "prompt") await runTurn(typed.text, randomUUID());
    }
  } finally {
    reader.close();
    out.write("\n");
    await closeAll();
  }
}

/**
 * The line a chat prints when its session host reopened on earlier turns (CONV-3): how many, and
 * the last one's prompt and item count. Empty for a new conversation.
 */
function describeResumedHost(turns: readonly unknown[]): string {
  if (turns.length === 0) return "";
  const last = turns[turns.length - 1] as { prompt?: unknown; items?: unknown[] };
  const prompt = typeof last.prompt === "string" ? (last.prompt.length > 60 ? `${last.prompt.slice(0, 57)}...` : last.prompt) : "";
  const items = Array.isArray(last.items) ? `, ${last.items.length} item${last.items.length === 1 ? "" : "s"}` : "";
  return `↺ session host resumed: ${turns.length} earlier turn${turns.length === 1 ? "" : "s"} (last: ${JSON.stringify(prompt)}${items})\n`;
}

/**
 * DX-18: `--conversation <id>` continues a conversation, so a typo is refused (exit 2) instead of
 * silently starting an empty one; `--new` starts one under that id and is refused when it exists.
 */
async function checkConversation(catalog: SessionCatalog, agentStoreDir: string, projectId: string, conversationId: string, fresh: boolean): Promise<void> {
  const exists = await catalog.list({ projectId }).then((sessions) => sessions.some((session) => session.address.conversationId === conversationId)).finally(() => catalog.close());
  if (exists && fresh) throw new SteamharnessError("input_validation", `[steamharness] [chat] conversation ${conversationId} already exists in ${agentStoreDir}: leave out --new to continue it`, { field: "conversation" });
  if (!exists && !fresh) throw new SteamharnessError("not_found", `[steamharness] [chat] no conversation ${conversationId} in ${agentStoreDir}: add --new to start it, or leave out --conversation for a new one`, { field: "conversation" });
}

/** What a chat opens before its first prompt. */
interface ChatParts {
  storage: Storage;
  node: ReturnType<typeof createAgentNode>;
  modelLine: string;
  storeLine: string;
}

/**
 * Starts the chat's host bridge and publishes it to this process's environment, where the
 * capability tools look for it; the token stays in this process. `null` when disabled or when an
 * enclosing host already provides a bridge.
 */
async function startChatBridge(start: StartHostBridge | undefined, stores: Partial<Record<"local" | "server", ProjectConfigurationStore>>, projectId: string): Promise<{ close(): Promise<void> } | null> {
  if (!start || process.env[HOST_BRIDGE_URL_ENV] || process.env[HOST_BRIDGE_TOKEN_ENV]) return null;
  const bridge = await start({ stores, defaultProjectId: projectId });
  Object.assign(process.env, bridge.env);
  return {
    async close() {
      if (process.env[HOST_BRIDGE_URL_ENV] === bridge.url) {
        delete process.env[HOST_BRIDGE_URL_ENV];
        delete process.env[HOST_BRIDGE_TOKEN_ENV];
      }
      await bridge.close();
    },
  };
}
