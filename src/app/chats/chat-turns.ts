/**
 * Chats (issue 45, UI-1 … UI-5): a chat is a durable conversation of one tenant, keyed by the
 * client's chat id. Each user message is one task of the conversation's resident session host,
 * submitted under a task id made from the message's own id, so a message the server already has
 * is recognised by id (the host's submit is idempotent by task id) and a message posted while the
 * chat is busy queues durably behind the running turn (the host's serial lane). Stop is the
 * host's cancel command (a persisted cancel intent, answered by whichever process holds the
 * session). A turn's stream is a read of the session log: the run's events from its first one,
 * then new ones as they are committed — so any process sharing the session backend serves it.
 */
import { createHash } from "node:crypto";
import type { AgentNode } from "../agent-node/create-agent-node.js";
import { sessionAddressOf } from "../agent/session-resolver.js";
import { answerApproval, type ApprovalGovernance } from "../approvals/answer-approval.js";
import { buildNodeContext } from "../node-context/node-context.js";
import { sendAgentSessionCommand } from "../session-host/control.js";
import { pastPoll } from "../session-host/host-runtime.js";
import { liveHost } from "../session-host/registry.js";
import type { AgentSessionHost } from "../session-host/types.js";
import { createTenantCache, type Closeable } from "../tenants/tenant-cache.js";
import { tenantStorages } from "../tenants/tenant-storage.js";
import { createChatFeed, type ChatLivePiece } from "./chat-feed.js";
import { forkSession } from "../time-travel/fork-session.js";
import type { ForkHazard } from "../../domain/time-travel/fork.js";
import { isSteamharnessError, SteamharnessError } from "../../domain/errors.js";
import type { ToolCatalogEntry } from "../../domain/node-context.js";
import type { SessionEvent } from "../../domain/agent/session-events.js";
import type { DecisionAnswerer } from "../../domain/agent/decision-answerer.js";
import { ACTIVE_TASK_STATUSES, type AgentSessionTaskRecord } from "../../domain/session-host/host-state.js";
import type { HarnessRuntime } from "../../ports/runtime.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import type { SessionStore } from "../../ports/session-store.js";
import type { Storage } from "../../ports/storage.js";
import type { ToolPermissionDecision, ToolPermissions } from "../../ports/tool-permissions.js";
import type { UserInput } from "../../ports/user-input.js";

/** The tenant of chats whose host has a single identity (no API keys). */
export const SHARED_CHAT_TENANT = "token:shared";

/** Options of {@link createChatTurns}. */
export interface ChatTurnsOptions {
  /** The agent node of the chats; it must be created with `session: { … }` (its turns run on resident session hosts). */
  node: AgentNode;
  projectId: string;
  /** The shared stores; `storage.sessions` keeps the chats (durable for chats that outlive the process). */
  storage: Storage;
  /** The host's tool catalog. */
  toolCatalog?: ToolCatalogEntry[];
  runtime: HarnessRuntime;
  /** How often the one poller of a chat whose turn another process runs asks its log and record for news (default 25 ms); a turn this process runs wakes its readers as it commits. */
  pollMs?: number;
  /**
   * How many chats this process keeps a resident session host for (default 64). When a new
   * chat needs one past it, hosts with nothing running or queued are closed (their chats reopen
   * on the next message); when every host is busy, the message is refused with `rate_limited`
   * rather than growing without bound (many chats opened by one client must not exhaust the host).
   */
  maxResidentHosts?: number;
  /**
   * Issue 47: the governed adapter the chats' tool approvals go through: a turn's principal is
   * the requester (GOV-1) and an answer is recorded by its `decide()` with the answering
   * principal, or refused (GOV-4: `forbidden`; `approval_expired`, `conflict`).
   */
  approvals?: ApprovalGovernance;
}

/** Who a chat request comes from (GOV-1): its principal's tenant key and subject. */
export interface ChatPrincipal {
  tenant: string;
  subject: string;
}

/** A turn of a chat: the user message and whether it asks for another answer to it. */
export interface ChatTurnRequest {
  tenant: string;
  chatId: string;
  /** The client's id of the user message: the same id is the same turn. */
  messageId: string;
  text: string;
  /** A new answer to a message the chat has (`trigger: "regenerate-message"`). */
  regenerate?: boolean;
  /** UI-5: deliver the message to the running turn at its next step boundary (else, or when none runs, it is a turn of its own). */
  steer?: boolean;
  /** The node the chat's host opens on when this turn opens it, when not the chats' `node` (BUD-4: the caller's tenant budget added). */
  node?: AgentNode;
  /** GOV-1: who sends the message: the requester of the approvals of the host this turn opens. */
  principal?: ChatPrincipal;
}

/** A turn as the chat keeps it. */
export interface ChatTurn {
  taskId: string;
  runId: string;
  /** False when the chat already had this turn (a resent message). */
  created: boolean;
  /** Where the turn is now: `queued` while another turn of the chat runs (a follow-up). */
  status: AgentSessionTaskRecord["status"];
}

/** What a stream of a turn yields: the run's logged events in `seq` order, then how it ended. */
export type ChatStreamEntry =
  | { kind: "event"; event: SessionEvent }
  | { kind: "end"; status: AgentSessionTaskRecord["status"]; error?: { code: string; message: string }; steeredInto?: string };

/** A host record or log this process keeps open, as it is being opened. */
interface Kept extends Closeable {
  value: Promise<Closeable | null>;
}

const ACTIVE = new Set<AgentSessionTaskRecord["status"]>(["queued", "running"]);
const PREFIX = "ui.";
/** How many host records and logs of chats a process keeps open. */
const KEPT = 256;

/**
 * The client's id of the user message a chat task was queued for (UI-5: a steered message keeps it in the turn it joined).
 *
 * @example
 * chatMessageIdOf("ui.m1~1"); // "m1"
 */
export function chatMessageIdOf(taskId: string): string {
  return taskId.startsWith(PREFIX) ? taskId.slice(PREFIX.length).replace(/~\d+$/, "") : taskId;
}

/**
 * The session host's conversation id of a tenant's chat: distinct per tenant, so one chat id of
 * two tenants never meets (the session-host registry of a process is keyed by conversation id).
 *
 * @example
 * chatConversationId("key:acme", "c1"); // "chat-<40 hex digits>"
 */
export function chatConversationId(tenant: string, chatId: string): string {
  return `chat-${createHash("sha256").update(`${tenant}\u0000${chatId}`).digest("hex").slice(0, 40)}`;
}

/**
 * The chat use case over an agent node with resident session hosts.
 *
 * @example
 * const chats = createChatTurns({ node: createAgentNode({ models, session: {} }), projectId, storage, runtime });
 * const turn = await chats.submit({ tenant, chatId: "c1", messageId: "m1", text: "Hello" });
 * for await (const entry of chats.stream(tenant, "c1", turn.taskId)) console.log(entry);
 */
export function createChatTurns(options: ChatTurnsOptions) {
  const pollMs = options.pollMs ?? 25;
  const maxResidentHosts = options.maxResidentHosts ?? 64;
  // UI-4: a decision lives until the continued run asks for it; the run records it in its log
  // (`approval_decision`), where a replay of the run finds it. Under a governed adapter (issue
  // 47) tool approvals are its records instead, and only plan decisions are kept here.
  const decisions = new Map<string, ToolPermissionDecision>();
  const { approvals } = options;
  const toolPermissions: ToolPermissions = approvals
    ? { request: (request, signal) => approvals.request(request, signal) }
    : {
        request: async (request) => {
          const decision = decisions.get(request.requestId);
          decisions.delete(request.requestId);
          return decision ?? { outcome: "pending" };
        },
      };
  // UI-4: a plan decision comes through the same approval flow (the plan's request id is its
  // approval id); a denial's reason is the feedback the plan is revised with, none ends the run.
  const planAnswers: UserInput = {
    request: async (request) => {
      const decision = request.kind === "plan" ? decisions.get(request.requestId) : undefined;
      if (!decision || decision.outcome === "pending" || decision.outcome === "expired") return { outcome: "pending" };
      decisions.delete(request.requestId);
      const values = decision.outcome === "approved" ? { approved: true } : { approved: false, ...(decision.reason ? { feedback: decision.reason } : {}) };
      return { outcome: "answered", values, ...(decision.answeredBy ? { answeredBy: decision.answeredBy } : {}) };
    },
  };
  const opened = new Map<string, AgentSessionHost>();
  const tenantView = tenantStorages(options.storage);
  const storageOf = (tenant: string): Storage => (tenant === SHARED_CHAT_TENANT ? options.storage : tenantView(tenant));
  const sessionsOf = (tenant: string): SessionBackend => {
    const sessions = storageOf(tenant).sessions;
    if (!sessions) throw new SteamharnessError("input_validation", "[steamharness] [chat] chats need a storage with sessions (storage.sessions)", { field: "storage" });
    return sessions;
  };
  const feed = createChatFeed({ pollMs, isLocal: (conversationId) => liveHost(conversationId) !== null });
  const contextOf = (tenant: string, conversationId: string, principal?: ChatPrincipal) =>
    buildNodeContext({
      projectId: options.projectId,
      conversationId,
      // The host commits through a backend that wakes this process's readers of the chat at once.
      storage: { ...storageOf(tenant), sessions: feed.notifying(sessionsOf(tenant)) },
      runId: `host-${conversationId}`,
      toolPermissions,
      userInput: planAnswers,
      toolCatalog: options.toolCatalog ?? [],
      // GOV-1: the principal whose message opened the chat's host asks for its approvals.
      ...(principal ? { requester: { tenant: principal.tenant, subject: principal.subject } } : {}),
    }, options.runtime);

  /**
   * The chats' host records and logs this process reads, kept open (least recently used closed
   * past `KEPT`): opening a SQLite file per request would cost more than the read.
   */
  // Every call of `keep` names its opener; the cache's own maker is never asked.
  const kept = createTenantCache<Kept>(() => ({ value: Promise.resolve(null), close: async () => {} }), KEPT);
  const keep = <T extends Closeable>(key: string, open: () => Promise<T | null>): Promise<T | null> => {
    const held = kept.of(key, () => {
      const value = open();
      // UI-1: a file closed last checkpoints and syncs it; dropped by a new chat's request, it is closed after the loop served I/O again, not before that request's first chunk.
      return { value, close: async () => void (await Promise.all([value.catch(() => null), pastPoll()]))[0]?.close() };
    });
    // A chat that does not exist yet (or failed to open) is asked again next time.
    void held.value.then((value) => value === null && kept.forget(key, held), () => kept.forget(key, held));
    return held.value as Promise<T | null>;
  };
  const recordOf = async (tenant: string, chatId: string, create: boolean): Promise<AgentSessionHostStore | null> => {
    const conversationId = chatConversationId(tenant, chatId);
    const key = `record:${conversationId}`;
    const found = await keep(key, () => sessionsOf(tenant).openHostStore(conversationId, { create }));
    if (found || !create) return found;
    // The miss is forgotten already (keep): open it again, creating it.
    return keep(key, () => sessionsOf(tenant).openHostStore(conversationId, { create: true }));
  };
  const logOf = (tenant: string, chatId: string): Promise<SessionStore | null> => {
    const conversationId = chatConversationId(tenant, chatId);
    return keep(`log:${conversationId}`, () => sessionsOf(tenant).openUnleased({ address: sessionAddressOf({}, { projectId: options.projectId, conversationId }), create: false }));
  };

  /** Opens the chat's host in this process unless one holds it here or elsewhere (then commands go through its durable inbox). */
  /** Makes room for one more resident host (closing idle ones), or refuses with `rate_limited` while every host is busy. */
  const roomForHost = async (conversationId: string): Promise<void> => {
    if (liveHost(conversationId) || opened.size < maxResidentHosts) return;
    await closeIdleHosts();
    if (opened.size >= maxResidentHosts) {
      throw new SteamharnessError("rate_limited", `[steamharness] [chat] every one of this process's ${maxResidentHosts} chat hosts is busy: retry once a turn has ended`, { data: { maxResidentHosts } });
    }
  };
  /** `node`: the caller's (BUD-4), used when this call opens the host. */
  const ensureHost = async (tenant: string, conversationId: string, node: AgentNode = options.node, principal?: ChatPrincipal): Promise<void> => {
    await roomForHost(conversationId);
    if (liveHost(conversationId)) return;
    try {
      const host = await node.openSessionHost(contextOf(tenant, conversationId, principal));
      if (host) {
        opened.set(conversationId, host);
        // UI-1: the model's deltas reach this process's readers of the chat as they stream.
        host.subscribe((chunk) => feed.chunk(conversationId, chunk), { snapshots: false });
      }
    } catch (error) {
      if (!isSteamharnessError(error, "session_busy")) throw error;
    }
  };

  /** UI-7: who answered through the chat route — the caller's tenant (none for the shared one) and subject, now. */
  const answererIn = (tenant: string, principal?: ChatPrincipal): DecisionAnswerer => ({ surface: "ui-chat", ...(tenant === SHARED_CHAT_TENANT ? {} : { tenant }), ...(principal ? { subject: principal.subject } : {}), at: Date.now() });

  /** Closes the resident hosts with no turn running or queued (a waiting turn is durable: its answer reopens the host). */
  const closeIdleHosts = async (): Promise<void> => {
    await Promise.all(
      [...opened].map(async ([conversationId, host]) => {
        const busy = (await host.tasks()).some((task) => task.status === "running" || task.status === "queued");
        if (busy || opened.get(conversationId) !== host) return;
        opened.delete(conversationId);
        await host.close();
      }),
    );
  };

  const turns = {
    /** Whether the tenant has this chat. */
    async exists(tenant: string, chatId: string): Promise<boolean> {
      return (await recordOf(tenant, chatId, false)) !== null;
    },

    /**
     * Starts (or finds) the turn of a user message. A message id the chat has is the same turn
     * (`created: false`) unless `regenerate` asks for a new answer; while another turn runs, the
     * new one waits behind it (a durable follow-up).
     */
    async submit(request: ChatTurnRequest): Promise<ChatTurn> {
      const conversationId = chatConversationId(request.tenant, request.chatId);
      const base = `${PREFIX}${request.messageId}`;
      // Refused before anything is written when this process has no room for the chat's host.
      await roomForHost(conversationId);
      const record = (await recordOf(request.tenant, request.chatId, true))!;
      // The message's turns: its first, then its regenerations `~1`, `~2` … (a lookup each, not a list of every turn of the chat).
      const turnsOfMessage = async (): Promise<AgentSessionTaskRecord[]> => {
        const found: AgentSessionTaskRecord[] = [];
        for (let task = await record.getTask(base); task; task = await record.getTask(`${base}~${found.length}`)) found.push(task);
        return found;
      };
      const sent = (task: AgentSessionTaskRecord): ChatTurn => ({ taskId: task.taskId, runId: task.runId, created: false, status: task.status });
      // UI-1: a new message to the chat's host here is submitted without a lookup first: the host's
      // submit adds a task id it has not seen and answers `created: false` for one it has (a resent message, looked up then).
      const local = liveHost(conversationId) !== null;
      const earlier = request.regenerate || !local ? await turnsOfMessage() : [];
      if (earlier.length > 0 && !request.regenerate) {
        const last = earlier.at(-1)!;
        // UI-1: a turn whose process died before it ended is recovered by the host this opens (with `resume`), not left waiting.
        if (ACTIVE.has(last.status)) await ensureHost(request.tenant, conversationId, request.node, request.principal);
        return sent(last);
      }
      const taskId = earlier.length === 0 ? base : `${base}~${earlier.length}`;
      await ensureHost(request.tenant, conversationId, request.node, request.principal);
      // UI-1: the turn's first step streams live to this process's readers (a steer joins a running turn instead).
      // The log's head is the one the chat's host here read or appended last (its store is open), else read.
      const live = !request.steer && opened.has(conversationId);
      const known = live ? feed.head(conversationId) : undefined;
      const log = live && known === undefined ? await logOf(request.tenant, request.chatId) : null;
      const lastSeq = known ?? (log ? (await log.head()).lastSeq : null);
      const unexpect = lastSeq === null ? null : feed.expect(conversationId, `run-${taskId}`, lastSeq);
      const command = request.steer ? ({ type: "steer", prompt: request.text, taskId } as const) : ({ type: "submit", prompt: request.text, mode: "queue", taskId } as const);
      const result = await sendAgentSessionCommand(conversationId, command, { sessions: sessionsOf(request.tenant) }).catch((error: unknown) => {
        unexpect?.();
        throw error;
      });
      if (result.type !== "submit" || !result.created) unexpect?.();
      if ((result.type === "submit" || result.type === "steer") && !result.created && !request.regenerate) return sent((await turnsOfMessage()).at(-1)!);
      if (result.type === "stored") return { taskId, runId: `run-${taskId}`, created: true, status: "queued" };
      if (result.type === "steer") return { taskId: result.taskId, runId: result.runId, created: result.created, status: result.into === null ? "running" : "queued" };
      if (result.type !== "submit") throw new SteamharnessError("internal", "[steamharness] [chat] submit answered with another command's result");
      // A turn another one runs ahead of waits behind it (the host here knows what it runs).
      const host = liveHost(conversationId);
      const others = host ? [host.runningTask()].filter((id) => id !== null) : (await record.findTasks({ status: ["running"] })).map((task) => task.taskId);
      const running = others.some((id) => id !== result.taskId && id.startsWith(PREFIX));
      return { taskId: result.taskId, runId: result.runId, created: result.created, status: running ? "queued" : "running" };
    },

    /**
     * The turn whose stream is active (running, else the next queued) — with `latest`, else the
     * chat's last turn — `null` when there is none, or `undefined` for a chat the tenant does not have.
     * An unfinished turn no process runs (its process died) is recovered by the host this opens (`node`: the caller's, BUD-4).
     */
    async active(tenant: string, chatId: string, latest = false, node?: AgentNode): Promise<AgentSessionTaskRecord | null | undefined> {
      const record = await recordOf(tenant, chatId, false);
      if (!record) return undefined;
      // UI-2: the active turns and the last one — indexed reads, not the chat's whole history.
      const all = (await record.findTasks({ status: [...ACTIVE] })).filter((task) => task.taskId.startsWith(PREFIX));
      const last = latest ? (await record.findTasks({ last: 1 })).find((task) => task.taskId.startsWith(PREFIX)) : undefined;
      const found = all.find((task) => task.status === "running") ?? all.find((task) => task.status === "queued");
      // A read needs no room of its own: with every host of this process busy it reads the log as before.
      if (found) await ensureHost(tenant, chatConversationId(tenant, chatId), node).catch((error: unknown) => { if (!isSteamharnessError(error, "rate_limited")) throw error; });
      return found ?? last ?? null;
    },

    /**
     * UI-4: answers the tool approval (or plan) a turn of the chat waits for (`approvalId`: its
     * request id), answered by `principal`, and continues that turn's run. A tool approval goes
     * through `answerApproval` (the governed `decide()`, which may refuse it: `forbidden`,
     * `approval_expired`, `conflict`). Resolves the turn and the log position its continuation
     * follows; throws `not_found` when no turn of the chat waits for that request.
     */
    async answer(tenant: string, chatId: string, approvalId: string, decision: { approved: boolean; reason?: string }, node?: AgentNode, principal?: ChatPrincipal): Promise<{ taskId: string; runId: string; afterSeq: number }> {
      const record = await recordOf(tenant, chatId, false);
      const task = record ? (await record.findTasks({ status: ["waiting"] })).find((entry) => entry.taskId.startsWith(PREFIX) && entry.detail?.requestId === approvalId) : undefined;
      if (!task) throw new SteamharnessError("not_found", `[steamharness] [chat] no turn of chat ${chatId} waits for approval ${approvalId}`, { field: "approval.id" });
      const log = await logOf(tenant, chatId);
      const afterSeq = log ? (await log.head()).lastSeq : 0;
      const wait = approvals && log ? (await log.readRun(task.runId)).find((event) => event.type === "approval_wait" && event.payload.requestId === approvalId) : undefined;
      const plan = wait?.type === "approval_wait" && wait.payload.kind === "plan";
      const answer = { requestId: approvalId, outcome: decision.approved ? "approved" : "denied", answeredBy: answererIn(tenant, principal), ...(decision.reason ? { reason: decision.reason } : {}) } as const;
      // Issue 47: one app step answers a tool approval (under a governed adapter, its decide() keeps it); a plan is the chat's own input.
      const given = plan ? answer : await answerApproval(approvals, answer);
      if (!approvals || plan) decisions.set(approvalId, given);
      const conversationId = chatConversationId(tenant, chatId);
      await ensureHost(tenant, conversationId, node, principal);
      await sendAgentSessionCommand(conversationId, { type: "continue", taskId: task.taskId }, { sessions: sessionsOf(tenant) });
      return { taskId: task.taskId, runId: task.runId, afterSeq };
    },

    /**
     * UI-4: answers the `ask_user` question a turn of the chat waits for — the call `toolCallId`,
     * answered with `answer` (the client's tool output) — and continues that turn's run. Resolves
     * like {@link answer}; throws `not_found` when no turn of the chat waits for that question.
     */
    async reply(tenant: string, chatId: string, toolCallId: string, answer: string, node?: AgentNode): Promise<{ taskId: string; runId: string; afterSeq: number }> {
      const record = await recordOf(tenant, chatId, false);
      const log = await logOf(tenant, chatId);
      const task = record ? (await record.findTasks({ status: ["waiting"] })).find((entry) => entry.taskId.startsWith(PREFIX)) : undefined;
      const requestId = task?.detail?.requestId;
      const wait = task && log ? (await log.readRun(task.runId)).find((event) => event.type === "approval_wait" && event.payload.requestId === requestId) : undefined;
      if (!task || wait?.type !== "approval_wait" || wait.payload.kind !== "question" || wait.payload.toolCallId !== toolCallId) {
        throw new SteamharnessError("not_found", `[steamharness] [chat] no turn of chat ${chatId} waits for the answer to ${toolCallId}`, { field: "toolCallId" });
      }
      const afterSeq = (await log!.head()).lastSeq;
      const conversationId = chatConversationId(tenant, chatId);
      await ensureHost(tenant, conversationId, node);
      await sendAgentSessionCommand(conversationId, { type: "continue", taskId: task.taskId, answer, requestId: String(requestId), answeredBy: answererIn(tenant) }, { sessions: sessionsOf(tenant) });
      return { taskId: task.taskId, runId: task.runId, afterSeq };
    },

    /**
     * FORK-1, FORK-2: forks the tenant's chat at a message into a new chat `newId` of the same
     * tenant, whose history is the chat's log up to there (read through, not copied): at a user
     * message (`messageId`: its client id), everything before that message's turn — the client
     * sends it again, or an edited one —; at an assistant message (`msg-<runId>`, the id the
     * stream's `start` gave it), everything through that turn, which must have ended. A repeat
     * of an unsafe call the chat made after the point needs a fresh decision (the fork's hazards).
     * `not_found` for a chat or message the tenant does not have, `conflict` for a taken `newId`
     * or a turn still running; nothing is written then.
     */
    async fork(tenant: string, chatId: string, messageId: string, newId: string): Promise<{ atSeq: number; hazards: ForkHazard[] }> {
      const record = await recordOf(tenant, chatId, false);
      const log = await logOf(tenant, chatId);
      if (!record || !log) throw new SteamharnessError("not_found", `[steamharness] [chat] no chat ${chatId}`, { field: "id" });
      const tasks = (await record.listTasks()).filter((task) => task.taskId.startsWith(PREFIX));
      const user = tasks.find((task) => chatMessageIdOf(task.taskId) === messageId);
      const answer = user ? undefined : tasks.find((task) => `msg-${task.runId}` === messageId);
      const task = user ?? answer;
      if (!task) throw new SteamharnessError("not_found", `[steamharness] [chat] chat ${chatId} has no message ${messageId}`, { field: "messageId" });
      if (answer && ACTIVE.has(answer.status)) throw new SteamharnessError("conflict", `[steamharness] [chat] the turn of message ${messageId} has not ended: fork at it once it has, or at its user message`, { field: "messageId" });
      const events = await log.readRun(task.runId);
      // A queued turn has logged nothing yet: the fork keeps everything so far.
      const atSeq = events.length === 0 ? (await log.head()).lastSeq : user ? events[0]!.seq - 1 : events.at(-1)!.seq;
      if (await recordOf(tenant, newId, false)) throw new SteamharnessError("conflict", `[steamharness] [chat] chat ${newId} exists`, { field: "newId" });
      const at = (id: string) => sessionAddressOf({}, { projectId: options.projectId, conversationId: chatConversationId(tenant, id) });
      const fork = await forkSession({ sessions: sessionsOf(tenant), from: at(chatId), at: { seq: atSeq }, to: at(newId) });
      await recordOf(tenant, newId, true);
      return { atSeq: fork.atSeq, hazards: fork.hazards };
    },

    /** Cancels the chat's active turn (a persisted cancel intent): its logged output stays. Resolves whether a turn was stopped. */
    async stop(tenant: string, chatId: string, node?: AgentNode): Promise<boolean> {
      const task = await turns.active(tenant, chatId);
      if (!task) return false;
      const conversationId = chatConversationId(tenant, chatId);
      await ensureHost(tenant, conversationId, node);
      const result = await sendAgentSessionCommand(conversationId, { type: "cancel", taskId: task.taskId }, { sessions: sessionsOf(tenant) });
      return result.type === "stored" || (result.type === "cancel" && result.cancelled.length > 0);
    },

    /**
     * UI-1: `listener` receives the text deltas of `runId`'s first model step as they stream, when
     * this process runs the chat's host and queued the turn (`null` otherwise: the log is the only
     * source). Returns the unsubscribe.
     */
    live(tenant: string, chatId: string, runId: string, listener: (piece: ChatLivePiece) => void): (() => void) | null {
      const conversationId = chatConversationId(tenant, chatId);
      return opened.has(conversationId) ? feed.live(conversationId, runId, listener) : null;
    },

    /**
     * The logged events of a turn's run, from its first event, then each new one as it is
     * committed, and how the turn ended (`end`). Reads only the log and the host record, so any
     * process on the same session backend serves it. Aborting `signal` ends the read (never the run).
     * `live`: the caller just started the turn here and follows its first step live (UI-1): the
     * first read waits past the next poll of the event loop, after the step's first text went out
     * (nothing is lost: what the turn logged by then is read then).
     */
    async *stream(tenant: string, chatId: string, taskId: string, signal?: AbortSignal, live = false): AsyncGenerator<ChatStreamEntry, void, undefined> {
      if (live) await pastPoll();
      const conversationId = chatConversationId(tenant, chatId);
      const hostStore = await recordOf(tenant, chatId, false);
      if (!hostStore) throw new SteamharnessError("not_found", `[steamharness] [chat] no chat ${chatId}`, { field: "id" });
      // What the chat's poller compares (when another process runs the turn): the log's head and the unfinished tasks' states
      // (a task that ends leaves them) — an indexed read, not the chat's whole history (UI-2).
      const reader = feed.reader(conversationId, async () => {
        const log = await logOf(tenant, chatId);
        return `${log ? (await log.head()).lastSeq : -1} ${(await hostStore.findTasks({ status: ACTIVE_TASK_STATUSES })).map((task) => `${task.taskId}:${task.status}`).join()}`;
      });
      try {
        let log: SessionStore | null = null;
        let lastSeq = -1;
        for (;;) {
          if (signal?.aborted) return;
          const since = reader.version();
          // The task's state first: a final state read before the log means the log read next is complete.
          const task = await reader.shared(`task ${taskId}`, () => hostStore.getTask(taskId));
          if (!task) throw new SteamharnessError("not_found", `[steamharness] [chat] no turn ${taskId} in chat ${chatId}`, { field: "id" });
          const runId = task.runId;
          log ??= await logOf(tenant, chatId);
          if (log) {
            const opened = log;
            let events: readonly SessionEvent[];
            if (lastSeq < 0) {
              // The head first: what is committed after it is read by the next `readAfter`, never twice.
              lastSeq = (await opened.head()).lastSeq;
              const upTo = lastSeq;
              events = (await opened.readRun(runId)).filter((event) => event.seq <= upTo);
            } else {
              const after = lastSeq;
              events = await reader.shared(`after ${runId} ${after}`, async () => (await opened.readAfter(after)).filter((event) => event.runId === runId));
            }
            for (const event of events) {
              lastSeq = Math.max(lastSeq, event.seq);
              yield { kind: "event", event };
            }
            if (events.length > 0) continue;
          }
          if (!ACTIVE.has(task.status)) {
            const detail = task.detail ?? {};
            yield { kind: "end", status: task.status, ...(task.status === "failed" ? { error: { code: String(detail.code ?? "internal"), message: String(detail.message ?? "the turn failed") } } : {}), ...(typeof detail.steeredInto === "string" ? { steeredInto: detail.steeredInto } : {}) };
            return;
          }
          await reader.wait(since, signal);
        }
      } finally {
        reader.close();
      }
    },

    /** Releases the chats' hosts of this process: running turns stay recorded and continue on the next host that opens them. */
    async close(): Promise<void> {
      for (const host of opened.values()) await host.suspend();
      opened.clear();
      await kept.close();
      await options.node.close();
    },
  };
  return turns;
}

/** The chat use case returned by {@link createChatTurns}. */
export type ChatTurns = ReturnType<typeof createChatTurns>;
