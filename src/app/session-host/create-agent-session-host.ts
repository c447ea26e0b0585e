import { randomUUID } from "node:crypto";
import type { AgentToolGroup } from "../agent/extensions/types.js";
import type { AgentOptions, AgentToolSet } from "../agent/types.js";
import type { AgentTool } from "../../domain/agent-tool.js";
import { stableHash } from "../../domain/stable-hash.js";
import { SteamharnessError } from "../../domain/errors.js";

import type { AgentSessionContextRecord, AgentSessionTaskRecord } from "../../domain/session-host/host-state.js";
import type { SessionLease } from "../../ports/session-lease.js";
import { SUBAGENT_TOOL, createSubagentTool } from "./delegation.js";
import { addContext, runHostCommand, type HostCommandDeps } from "./host-commands.js";
import { measureContext, openHostContext, type HostContext, type HostContextFactoryOptions } from "./host-contexts.js";
import { CANCEL, HostRuntime } from "./host-runtime.js";
import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import { runOnHost } from "./host-runs.js";
import { startInbox } from "./inbox.js";
import { startRegistryTasks } from "./registry-tasks.js";
import { recordLeaseOwner } from "./host-lease.js";
import { registerHost, releaseHostSlot, reserveHostSlot } from "./registry.js";
import type { AgentSessionHost, AgentSessionHostSetup } from "./types.js";

async function hostTools(options: AgentSessionHostSetup, context: Parameters<NonNullable<AgentSessionHostSetup["createTools"]>>[0]): Promise<{ tools: AgentTool[]; toolGroups: AgentToolGroup[]; close: () => Promise<void> }> {
  const created = options.createTools ? await options.createTools(context) : [];
  const set: AgentToolSet = Array.isArray(created) ? { tools: created } : created;
  return { tools: set.tools, toolGroups: set.toolGroups ?? [], close: async () => void (await set.close?.()) };
}

/**
 * Opens a resident session host for a conversation (HOST-1): takes the session's execution lease
 * (one process per session; a second host anywhere gets `session_busy`, HOST-4), builds the
 * host's tools once and keeps them, the session store and the model between turns, and serves
 * typed commands from this process (`host.control` / `controlAgentSession`) and from other
 * processes through the durable inbox of the conversation's host record. Sessions, the lease and
 * the record come from one value, `setup.sessions` (SQLite, PostgreSQL, or in memory for a host of
 * this process only); every run's node context comes from `setup.contextFor` (ARCH-4). With
 * `resume: true` it recovers the conversation's unfinished tasks from their checkpoints without
 * resubmitting their input (HOST-3); tasks with a persisted cancel are never run again (HOST-5).
 *
 * @example
 * const host = await openAgentSessionHost("conv-1", { projectId: "demo", sessions: storage.sessions, contextFor: (runId, signal) => createNodeContext({ projectId: "demo", storage, runId, signal }), models });
 * const { taskId } = await host.control({ type: "submit", prompt: "Summarise the notes" });
 * await host.waitForTask(taskId);
 * await host.close();
 */
export async function openAgentSessionHost(conversationId: string, setup: AgentSessionHostSetup): Promise<AgentSessionHost> {
  const { resume = false, projectId, sessions, contextFor, sessionKey = "agent", createTools: _createTools, inboxPollMs = 50, onReleased, ...agentOptions } = setup;
  const extraToolCatalog = agentOptions.extraToolCatalog;
  let sessionsReleased = false;
  const release = async () => {
    if (sessionsReleased) return;
    sessionsReleased = true;
    await onReleased?.();
  };
  if (typeof conversationId !== "string" || conversationId === "") throw new SteamharnessError("input_validation", "conversationId must be a non-empty string", { field: "conversationId" });
  if (!projectId) throw new SteamharnessError("input_validation", "projectId is required", { field: "projectId" });
  if (!sessions) throw new SteamharnessError("input_validation", "a session host needs a session backend", { field: "sessions" });
  const hostId = `host-${randomUUID()}`;
  reserveHostSlot(conversationId);
  let lease: SessionLease | null = null;
  let store: AgentSessionHostStore | null = null;
  const contexts = new Map<number, HostContext>();
  try {
    const leaseStartedAt = Date.now();
    lease = await sessions.leases.acquire({ projectId, conversationId, sessionKey }, { ownerId: hostId, onBusy: "throw" });
    store = (await sessions.openHostStore(conversationId, { create: true }))!;
    // The tools' context carries the agent's `extraToolCatalog` too: the catalog every run approves against.
    const toolsContext = contextFor(hostId, new AbortController().signal);
    const reportLease = recordLeaseOwner(store, toolsContext.runtime.telemetry, { projectId, conversationId, sessionKey, ownerId: hostId });
    await reportLease.acquired(leaseStartedAt);
    const toolsCatalog = [...toolsContext.toolCatalog, ...(extraToolCatalog ?? [])];
    const tools = await hostTools(setup, extraToolCatalog?.length ? { ...toolsContext, toolCatalog: toolsCatalog } : toolsContext);
    const delegation = agentOptions.tools?.includes(SUBAGENT_TOOL) ?? false;
    let deps!: HostCommandDeps;
    const agentOptionsFor = (record: AgentSessionContextRecord): AgentOptions => {
      const delegates = delegation && record.kind !== "child";
      return {
        ...agentOptions,
        // A child never delegates further; otherwise it keeps the parent's permission list as is.
        ...(record.kind === "child" && agentOptions.tools ? { tools: agentOptions.tools.filter((name) => name !== SUBAGENT_TOOL) } : {}),
        extraToolCatalog: [...(extraToolCatalog ?? []), ...(delegates ? [{ id: SUBAGENT_TOOL, autoApprove: true }] : [])],
        createTools: (context) => ({
          // Tool groups (EXT-3) are kept by the host like its tools; each run connects what it finds.
          toolGroups: tools.toolGroups,
          tools: [
            ...tools.tools,
            ...(delegates
              ? [createSubagentTool({
                  context,
                  openChild: (toolCallId) => openChild(record, context.runId, toolCallId),
                  emit: (chunk) => deps.runtime.emit(chunk),
                  onChildUsage: (child) => deps.runtime.usage.set(child.record.targetId, child.agent.getContextUsage()),
                })]
              : []),
          ],
        }),
      };
    };
    const contextOptions: HostContextFactoryOptions = { projectId, conversationId, sessions, agentOptions: agentOptionsFor };
    const openChild = async (parent: AgentSessionContextRecord, runId: string, toolCallId: string): Promise<HostContext> => {
      const sessionKey = `${parent.sessionKey}#child-${stableHash(`${runId}\u0000${toolCallId}`)}`;
      const existing = [...contexts.values()].find((context) => context.record.sessionKey === sessionKey);
      return existing ?? addContext(deps, { kind: "child", sessionKey, parentTargetId: parent.targetId });
    };

    let records = await store.listContexts();
    const lastTask = (await store.findTasks({ last: 1 })).at(-1);
    // UI-1: a record with no context and no task (a new chat's) has no setting or cancel either:
    // its host skips those reads and writes on its way to the first chunk.
    const fresh = records.length === 0 && lastTask === undefined;
    if (records.length === 0) {
      records = [{ targetId: 0, kind: "main", sessionKey, parentTargetId: null }];
      await store.putContext(records[0]!);
    }
    for (const record of records) contexts.set(record.targetId, await openHostContext(contextOptions, record));
    const active = fresh ? 0 : Number((await store.getSetting("activeTargetId")) ?? 0);
    const heldLease: SessionLease = lease!;
    const runtime = new HostRuntime({
      conversationId,
      hostId,
      sessionKey,
      systemPrompt: agentOptions.systemPrompt ?? "",
      resume,
      minOrder: resume ? 0 : Math.max(0, lastTask?.order ?? 0),
      store,
      contexts,
      activeTargetId: contexts.has(active) ? active : 0,
      nodeContext: contextFor,
      closeTools: tools.close,
      lease: heldLease,
      leaseLost: reportLease.lost,
      onReleased: async () => {
        inbox.stop();
        releaseHostSlot(conversationId);
        await release();
      },
    });
    deps = { runtime, contextOptions };
    for (const context of contexts.values()) runtime.usage.set(context.record.targetId, await measureContext(context, agentOptions.systemPrompt ?? ""));
    for (const task of fresh ? [] : await runtime.visibleTasks()) await runtime.refreshUsage(task);
    const control = (command: Parameters<AgentSessionHost["control"]>[0]) => runHostCommand(deps, command);
    const skipUpTo = resume ? 0 : Math.max(0, ...(await store.pendingCommands(0)).map((entry) => entry.seq));
    const inbox = startInbox({ runtime, control, pollMs: inboxPollMs, skipUpTo });
    const waitForTask = async (taskId: string): Promise<AgentSessionTaskRecord> => {
      let last: AgentSessionTaskRecord | null = null;
      for (;;) {
        const change = runtime.nextChange();
        const released = runtime.state === "suspended" || runtime.state === "closed";
        const task: AgentSessionTaskRecord | null = released ? last : await runtime.parts.store.getTask(taskId);
        if (!task) throw new SteamharnessError(released ? "unavailable" : "not_found", released ? "the session host was released" : `no task ${taskId}`);
        // A storage fault stopped the scheduler: nothing will move this task in this host.
        if (runtime.fault && (task.status === "queued" || task.status === "running")) {
          throw new SteamharnessError("unavailable", `the session host stopped scheduling after a storage fault; task ${taskId} stays ${task.status} for a resumed host`, { cause: runtime.fault });
        }
        if ((task.status !== "queued" && task.status !== "running") || released) return task;
        last = task;
        await change;
      }
    };
    registerHost(conversationId, {
      sessionKey,
      run: (request) => runOnHost(runtime, waitForTask, request),
      mainStore: () => (runtime.state === "open" ? (contexts.get(0)?.store ?? null) : null),
      control,
      subscribe: (listener) => runtime.subscribe(listener),
      runningTask: () => runtime.current?.task.taskId ?? null,
      abortCancelled: () => {
        const current = runtime.current;
        if (!current) return;
        void store!.getTask(current.task.taskId).then(
          (task) => {
            if (task?.cancelRequested) current.controller.abort(CANCEL);
          },
          () => undefined,
        );
      },
    });
    if (resume) {
      // Cancels persisted while no host ran are applied first: they are never retried (HOST-5).
      if (!fresh) await store.clearCancelled();
      await inbox.pollNow();
    }
    // A new record has no task to look at: its host is quiet at once (its first submit starts in one write, UI-1).
    if (fresh) runtime.quiet();
    else runtime.kick();
    const tasks = startRegistryTasks(runtime, store, agentOptions.session?.registry?.tasks ?? []);
    return {
      conversationId,
      hostId,
      status: () => runtime.state,
      async control(command) {
        // EXT-2: cancelling the whole session cancels its registry tasks too.
        if (command.type === "cancel" && command.taskId === undefined) tasks.abort();
        return control(command);
      },
      subscribe: (listener, options) => runtime.subscribe(listener, options),
      snapshot: () => runtime.snapshot(),
      tasks: () => runtime.visibleTasks(),
      waitForTask,
      idle: () => runtime.idle(),
      runInBackground: (work) => runtime.runInBackground(work),
      suspend: () => (tasks.abort(), runtime.suspend()),
      close: () => (tasks.abort(), runtime.close()),
    };
  } catch (error) {
    for (const context of contexts.values()) await context.store.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    await lease?.release().catch(() => undefined);
    releaseHostSlot(conversationId);
    await release().catch(() => undefined);
    throw error;
  }
}
