import type { AgentInput } from "../agent/types.js";
import { isSteamharnessError, SteamharnessError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { OutputItem, OutputItemStreamChunk } from "../../domain/output-items.js";
import { agentRingItemId, agentSessionItemId } from "../../domain/agent/ids.js";
import { createOutputStreamAccumulator, type OutputStreamAccumulator } from "../../domain/output-stream.js";
import type { AgentContextUsage } from "../../domain/agent/context-meter.js";
import { ACTIVE_TASK_STATUSES, nextHostStatus, nextRunnableTask, type AgentSessionHostStatus, type AgentSessionTaskRecord } from "../../domain/session-host/host-state.js";
import { buildAgentSessionSnapshot, snapshotChunk, snapshotItem } from "../../domain/session-host/snapshot.js";
import type { SessionLease } from "../../ports/session-lease.js";
import type { TokenCounts } from "../../ports/token-usage.js";
import type { HostContext } from "./host-contexts.js";
import { LEASE_OWNER_SETTING } from "./host-lease.js";
import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import type { AgentSessionBackgroundWork } from "./types.js";

/** Why a run's signal was aborted: suspend keeps the task, cancel ends it. */
export const SUSPEND = Symbol("steamharness.session-host.suspend");
export const CANCEL = Symbol("steamharness.session-host.cancel");

/** Everything the runtime is built from (see `createAgentSessionHost`). */
export interface HostRuntimeParts {
  conversationId: string;
  hostId: string;
  sessionKey: string;
  systemPrompt: string;
  resume: boolean;
  /** Tasks at or below this order belong to an earlier host and are not scheduled without `resume`. */
  minOrder: number;
  store: AgentSessionHostStore;
  lease: SessionLease;
  /** Reports the lease lost (once): the inbox poll found it no longer held while the host is open. */
  leaseLost(): void;
  contexts: Map<number, HostContext>;
  activeTargetId: number;
  nodeContext(runId: string, signal: AbortSignal): NodeContext;
  closeTools(): Promise<void>;
  onReleased(): Promise<void> | void;
}

const zero = (): TokenCounts => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });

/** A task as it is added: the store gives its order, and it carries no cancel intent yet. */
export type NewHostTask = Omit<AgentSessionTaskRecord, "order" | "cancelRequested" | "status">;

/**
 * Resolves after the event loop's next poll phase (an immediate queued from an immediate runs in
 * the next loop turn): what a write made ready — a socket's bytes, a reader's wake — goes first.
 *
 * @example
 * await pastPoll();
 */
export const pastPoll = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * The scheduling and lifecycle of a resident host: one serial lane runs tasks and
 * context-replacing commands (compact, reset, fork wait for active durable work, SES-7), rings
 * and per-run usage are tracked for the snapshot, and suspend/close release in order.
 */
export class HostRuntime {
  state: AgentSessionHostStatus = "open";
  readonly usage = new Map<number, AgentContextUsage>();
  readonly usageByRun = new Map<string, TokenCounts>();
  readonly childUsageByRun = new Map<string, TokenCounts>();
  /** The output items of each run this host ran, in output order (OUT-8 `turns[].items`). */
  readonly itemsByRun = new Map<string, OutputStreamAccumulator>();
  /** Items of turns an earlier host ran, read once per run from the host record (HOST-7). */
  private readonly storedItems = new Map<string, OutputItem[] | null>();
  /** Listeners of one run's own chunks (a node run through the host, EXT-1), by run id. */
  readonly runListeners = new Map<string, (chunk: OutputItemStreamChunk) => void>();
  current: { task: AgentSessionTaskRecord; controller: AbortController; done: Promise<void> } | null = null;
  private lane: Promise<unknown> = Promise.resolve();
  /** Lane work not yet settled. */
  private laneDepth = 0;
  private pump: Promise<void> | null = null;
  private dirty = false;
  /** Bumped before every write that may add runnable work (a task added or queued again). */
  private taskWrites = 0;
  /** `taskWrites` when a look at the tasks found none unfinished (UI-1: a task may then start at once). */
  private quietAt = -1;
  /** The storage fault that stopped scheduling, if any. */
  fault: unknown = null;
  /** Tasks of an earlier host that a run of this one continues by its run id (EXT-7): scheduled despite `minOrder`. */
  private readonly adopted = new Set<string>();
  private readonly listeners = new Set<(chunk: OutputItemStreamChunk) => void>();
  private readonly runOnly = new Set<(chunk: OutputItemStreamChunk) => void>();
  private readonly changeWaiters = new Set<() => void>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly backgroundController = new AbortController();
  private snapshotAdded = false;
  private lastRun: JsonObject = {};
  private publishing: Promise<void> = Promise.resolve();

  constructor(readonly parts: HostRuntimeParts) {}

  /** Runs `work` on the serial lane (after the running task and earlier lane work). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.laneDepth++;
    const result = this.lane.then(work);
    this.lane = result.catch(() => undefined).finally(() => this.laneDepth--);
    return result;
  }

  /** `snapshots: false`: the runs' chunks only (no `agent-session` snapshot is built for this listener). */
  subscribe(listener: (chunk: OutputItemStreamChunk) => void, options?: { snapshots?: boolean }): () => void {
    const set = options?.snapshots === false ? this.runOnly : this.listeners;
    set.add(listener);
    return () => set.delete(listener);
  }

  emit(chunk: OutputItemStreamChunk): void {
    for (const listener of this.listeners) listener(chunk);
    for (const listener of this.runOnly) listener(chunk);
  }

  /** Forwards a run's chunk; its own session item is folded into the host snapshot instead. */
  forward(chunk: OutputItemStreamChunk, context: HostContext): void {
    const sessionId = agentSessionItemId(context.record.sessionKey);
    if (chunk.type === "add" && chunk.item.id === sessionId && chunk.item.content !== undefined) {
      if (context.record.kind !== "child") this.lastRun = chunk.item.content as JsonObject;
      void this.publish();
      return;
    }
    if (chunk.type === "replace" && chunk.id === sessionId) {
      if (context.record.kind !== "child") this.lastRun = chunk.content as JsonObject;
      void this.publish();
      return;
    }
    if (chunk.type === "done" && chunk.id === sessionId) return;
    this.emit(chunk);
  }

  async snapshotContent(): Promise<JsonObject> {
    const tasks = await this.visibleTasks();
    return buildAgentSessionSnapshot({
      conversationId: this.parts.conversationId,
      sessionKey: this.parts.sessionKey,
      hostStatus: this.state,
      activeTargetId: this.parts.activeTargetId,
      contexts: [...this.parts.contexts.values()]
        .sort((a, b) => a.record.targetId - b.record.targetId)
        .map((context) => ({ ...context.record, usage: this.usage.get(context.record.targetId) ?? context.agent.getContextUsage() })),
      tasks,
      usageByRun: this.usageByRun,
      childUsageByRun: this.childUsageByRun,
      itemsByRun: await this.turnItems(tasks),
      run: this.lastRun,
    });
  }

  /**
   * The items of each turn: live for runs this host ran, else as the host that ran them recorded
   * them (HOST-7), so a host reopened in another process shows every earlier turn's items. One
   * keyed read per earlier run, kept: publishing a snapshot never rescans the history.
   */
  private async turnItems(tasks: readonly AgentSessionTaskRecord[]): Promise<Map<string, readonly OutputItem[]>> {
    const byRun = new Map<string, readonly OutputItem[]>();
    for (const task of tasks) {
      const live = this.itemsByRun.get(task.runId);
      if (live) {
        byRun.set(task.runId, live.items());
        continue;
      }
      if (!this.storedItems.has(task.runId)) {
        const stored = await this.parts.store.getTurnItems(task.runId).catch(() => undefined);
        // A failed read is tried again with the next snapshot; `null` (never recorded) is kept.
        if (stored === undefined) continue;
        this.storedItems.set(task.runId, stored as unknown as OutputItem[] | null);
      }
      const stored = this.storedItems.get(task.runId);
      if (stored) byRun.set(task.runId, stored);
    }
    return byRun;
  }

  async snapshot(): Promise<OutputItem> {
    return snapshotItem(this.parts.sessionKey, await this.snapshotContent());
  }

  /** Emits the current snapshot (serialised, so listeners see snapshots in order). */
  publish(): Promise<void> {
    this.publishing = this.publishing.then(async () => {
      if (this.listeners.size === 0 || this.state === "closed" || this.state === "suspended") return;
      const content = await this.snapshotContent();
      this.emit(snapshotChunk(this.parts.sessionKey, content, !this.snapshotAdded));
      this.snapshotAdded = true;
    }).catch(() => undefined);
    return this.publishing;
  }

  async visibleTasks(): Promise<AgentSessionTaskRecord[]> {
    const tasks = await this.parts.store.listTasks();
    return this.parts.resume ? tasks : tasks.filter((task) => this.isOwn(task));
  }

  /** UI-2: the unfinished tasks this host schedules — one indexed read, whatever the length of the task history. */
  async activeTasks(): Promise<AgentSessionTaskRecord[]> {
    const tasks = await this.parts.store.findTasks({ status: ACTIVE_TASK_STATUSES });
    return tasks.filter((task) => this.isOwn(task));
  }

  /** Whether this host schedules `task`: its own, any with `resume`, or one it adopted. */
  isOwn(task: AgentSessionTaskRecord): boolean {
    return this.parts.resume || task.order > this.parts.minOrder || this.adopted.has(task.taskId);
  }

  /**
   * Takes over a task an earlier host left unfinished (waiting on a person, or queued or running
   * when that host's process ended) because a run re-sent its run id here (EXT-7). Without this,
   * a host opened without `resume` would mark the task queued and never schedule it.
   */
  adopt(taskId: string): void {
    this.adopted.add(taskId);
  }

  /** Re-reads a run's usage events (idempotent by entry, so a replayed run counts once). */
  async refreshUsage(task: AgentSessionTaskRecord): Promise<void> {
    const context = this.parts.contexts.get(task.targetId);
    if (!context) return;
    const add = (total: TokenCounts, entry: TokenCounts) => {
      for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) total[key] += entry[key];
    };
    const own = zero();
    for (const event of await context.store.readRun(task.runId)) if (event.type === "usage") add(own, event.payload.entry);
    this.usageByRun.set(task.runId, own);
    // Parent-child metering: delegated child runs are derived from the parent run id.
    const prefix = `${task.runId}/subagent/`;
    const children = zero();
    let any = false;
    for (const child of this.parts.contexts.values()) {
      if (child.record.kind !== "child" || child.record.parentTargetId !== task.targetId) continue;
      for (const event of await child.store.readAfter(0, { types: ["usage"] })) {
        if (event.type !== "usage" || !event.runId.startsWith(prefix)) continue;
        add(children, event.payload.entry);
        any = true;
      }
    }
    if (any) this.childUsageByRun.set(task.runId, children);
  }

  changed(): void {
    for (const waiter of [...this.changeWaiters]) waiter();
    this.changeWaiters.clear();
    void this.publish();
  }

  nextChange(): Promise<void> {
    return new Promise((resolve) => this.changeWaiters.add(resolve));
  }

  /** Asks the scheduler to look for runnable tasks. */
  kick(): void {
    this.dirty = true;
    if (this.pump) return;
    this.schedule(async () => {});
  }

  /** Runs `first`, then drains while kicked, as the one pump of the host (a kick meanwhile only marks it dirty). */
  private schedule(first: () => Promise<void>): void {
    this.pump = (async () => {
      try {
        await first();
        while (this.dirty && (this.state === "open" || this.state === "closing")) {
          this.dirty = false;
          await this.drain();
        }
      } catch (error) {
        // A fault of the host record (SES-5): stop scheduling; the tasks stay as recorded for a resumed host.
        this.fault = error;
      }
    })().finally(() => {
      this.pump = null;
      // A kick that landed after the loop's last check but before this line must not be lost.
      if (this.dirty && (this.state === "open" || this.state === "closing")) this.kick();
      else this.changed();
    });
  }

  private async drain(): Promise<void> {
    while (this.state === "open" || this.state === "closing") {
      const writes = this.taskWrites;
      const tasks = await this.activeTasks();
      const next = nextRunnableTask(tasks);
      if (!next) {
        // Nothing unfinished, and nothing added while this looked: the next task may start at once.
        if (tasks.length === 0) this.quietAt = writes;
        return;
      }
      await this.exclusive(() => this.runTask(next));
    }
  }

  /** Marks the host as having nothing unfinished, as a look at its tasks finding none does (a new host record has none to look at). */
  quiet(): void {
    if (this.pump === null && this.current === null && this.taskWrites === 0) this.quietAt = 0;
  }

  /**
   * Adds `task` (HOST-1; idempotent by task id: an existing one is returned, `created: false`)
   * and has it run in turn. UI-1: when the host is quiet — nothing unfinished at its last look,
   * nothing added, queued again, running or on the lane since — the task is written as `running`
   * and starts at once: one write before its model request instead of an insert, a read of the
   * unfinished tasks and a move to `running`. It is the host's current task before it is written,
   * so a cancel that finds it written stops it (HOST-5) as it stops any running task.
   */
  addTask(task: NewHostTask): Promise<{ task: AgentSessionTaskRecord; created: boolean }> {
    const quiet = this.quietAt === this.taskWrites && this.pump === null && this.current === null && this.laneDepth === 0 && this.state === "open";
    this.taskWrites++;
    if (!quiet) {
      const queued = this.parts.store.insertTask({ ...task, status: "queued" });
      void queued.then(() => this.kick(), () => undefined);
      return queued;
    }
    const controller = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    // Its order is the store's to give: until then it is before anything added after it.
    this.current = { task: { ...task, status: "running", cancelRequested: false, order: Number.NEGATIVE_INFINITY }, controller, done };
    const added = this.parts.store.insertTask({ ...task, status: "running" });
    this.schedule(async () => {
      const outcome = await added.catch(() => null);
      // Then the scheduler looks at the tasks as usual (and finds the host quiet again, or what was added meanwhile).
      this.dirty = true;
      if (outcome?.created) return this.exclusive(() => this.runTask(outcome.task, { controller, finish }));
      // Not added (a fault, reported to the caller) or added before (a resent task id): nothing started here.
      this.current = null;
      finish();
    });
    return added;
  }

  /** Moves a waiting task back to `queued` with `input` (a continued pause) and has it run in turn; resolves whether it moved. */
  async requeue(taskId: string, input: JsonObject): Promise<boolean> {
    this.taskWrites++;
    const moved = await this.parts.store.updateTask(taskId, { status: "queued", input, detail: null });
    this.kick();
    return moved;
  }

  async idle(): Promise<void> {
    while (this.pump) await this.pump;
    await this.lane;
  }

  /**
   * UI-5: the messages steered into `task`'s run — queued `steer` tasks of its context submitted
   * after it. A delivered one is completed (it never runs on its own); one the run ends before
   * taking stays queued and runs next, as a follow-up.
   */
  private steeringOf(task: AgentSessionTaskRecord): NonNullable<AgentInput["steering"]> {
    const { store } = this.parts;
    return {
      // One indexed read of the record (not the task history), so a steer another process added is seen too.
      pending: async () => (await store.queuedSteerTasks(task.targetId, task.order)).filter((other) => this.isOwn(other)).map((other) => ({ id: other.taskId, text: other.prompt })),
      delivered: async (ids) => {
        for (const id of ids) {
          if ((await store.getTask(id))?.status === "queued") await store.updateTask(id, { status: "completed", detail: { steeredInto: task.runId } });
        }
        this.changed();
      },
    };
  }

  /** `started`: the task was written as running by {@link addTask}, which made it current with this controller. */
  private async runTask(task: AgentSessionTaskRecord, started?: { controller: AbortController; finish: () => void }): Promise<void> {
    const { store } = this.parts;
    const context = this.parts.contexts.get(task.targetId);
    const stop = () => {
      if (!started) return;
      this.current = null;
      started.finish();
    };
    if (!context) {
      await store.updateTask(task.taskId, { status: "failed", detail: { code: "not_found", message: `no context ${task.targetId}` } });
      return stop();
    }
    if (started?.controller.signal.aborted) {
      // Stopped between its write and here: it never ran. A suspend keeps it running for a resumed host; a cancel ends it.
      if (started.controller.signal.reason !== SUSPEND) {
        await store.requestCancel([task.taskId]);
        await store.clearCancelled();
      }
      return stop();
    }
    if (!started && !(await store.updateTask(task.taskId, { status: "running" }))) {
      await store.clearCancelled();
      return;
    }
    const controller = started?.controller ?? new AbortController();
    let finish!: () => void;
    if (started) {
      finish = started.finish;
      this.current!.task = task;
    } else this.current = { task, controller, done: new Promise((resolve) => (finish = resolve)) };
    this.changed();
    // `steer` only marks how the task was queued (UI-5); run as a turn of its own, it is a follow-up.
    const { steer: _steer, ...input } = task.input as { steer?: boolean; effort?: "minimal" | "low" | "medium" | "high"; model?: string; askResume?: AgentInput["askResume"] };
    const items = createOutputStreamAccumulator();
    // Recorded before the task's status moves (HOST-7): a host that sees the turn ended finds its items.
    const saveItems = () => store.putTurnItems(task.runId, items.items() as unknown as JsonObject[]);
    try {
      const run = context.agent.run({ prompt: task.prompt, runId: task.runId, ...input, steering: this.steeringOf(task) }, this.parts.nodeContext(task.runId, controller.signal));
      this.itemsByRun.set(task.runId, items);
      const ownIds = new Set([agentSessionItemId(context.record.sessionKey), agentRingItemId(context.record.sessionKey)]);
      let flushed = false;
      for await (const chunk of run) {
        const listener = this.runListeners.get(task.runId);
        listener?.(chunk);
        if (!ownIds.has(chunk.type === "add" ? chunk.item.id : chunk.id)) items.push(chunk);
        this.forward(chunk, context);
        // UI-1: the run's first delta reaches its listeners' sockets before the run goes on — a
        // model that answers at once would otherwise run its whole step (and more) in microtasks
        // first, holding the first chunk's write (a model streaming from the network yields anyway).
        if (!flushed && chunk.type === "delta" && (listener || this.listeners.size + this.runOnly.size > 0)) {
          flushed = true;
          await pastPoll();
        }
      }
      await saveItems();
      await store.updateTask(task.taskId, { status: "completed", detail: null });
    } catch (error) {
      // A fault of the record itself surfaces through the status write below.
      await saveItems().catch(() => undefined);
      if (controller.signal.reason === SUSPEND) {
        // Suspended: no cancel mark, the task stays `running` and a resumed host continues it.
      } else if (controller.signal.aborted || isSteamharnessError(error, "cancelled")) {
        await store.requestCancel([task.taskId]);
        await store.clearCancelled();
      } else if (isSteamharnessError(error, "user_input_required")) {
        const pause = error as SteamharnessError & { requestId?: string; request?: unknown };
        await store.updateTask(task.taskId, { status: "waiting", detail: JSON.parse(JSON.stringify({ requestId: pause.requestId ?? null, request: pause.request ?? null })) as JsonObject });
      } else {
        const code = isSteamharnessError(error) ? error.code : "internal";
        await store.updateTask(task.taskId, { status: "failed", detail: { code, message: error instanceof Error ? error.message : String(error) } });
      }
    } finally {
      this.current = null;
      finish();
      this.usage.set(context.record.targetId, context.agent.getContextUsage());
      await this.refreshUsage(task).catch(() => undefined);
      this.changed();
    }
  }

  runInBackground(work: AgentSessionBackgroundWork): Promise<unknown> {
    if (this.state !== "open") return Promise.reject(new SteamharnessError("unavailable", `the session host is ${this.state}`));
    const promise = Promise.resolve().then(() => work(this.backgroundController.signal));
    const tracked = promise.finally(() => this.background.delete(tracked));
    this.background.add(tracked);
    tracked.catch(() => undefined);
    return promise;
  }

  async suspend(): Promise<void> {
    if (this.state === "suspended" || this.state === "closed") return;
    this.state = nextHostStatus(this.state, "suspend");
    this.current?.controller.abort(SUSPEND);
    this.backgroundController.abort(SUSPEND);
    await this.settle();
    await this.release("suspended");
  }

  async close(): Promise<void> {
    if (this.state !== "open") {
      // A second close (or a close during suspend) waits for the first to finish releasing.
      while (this.state === "closing" || this.state === "suspending") await this.nextChange();
      return;
    }
    this.state = nextHostStatus(this.state, "close");
    this.kick();
    await this.settle();
    if (this.state !== "closing") return;
    await this.release("closed");
  }

  private async settle(): Promise<void> {
    for (;;) {
      await this.idle();
      if (this.background.size === 0 && !this.pump) break;
      await Promise.allSettled([...this.background]);
    }
    await this.publishing;
  }

  private async release(final: "suspended" | "closed"): Promise<void> {
    this.state = nextHostStatus(this.state, final);
    try {
      await this.parts.closeTools();
    } finally {
      for (const context of this.parts.contexts.values()) await context.store.close().catch(() => undefined);
      // Released on purpose: the next host takes nothing over. A lost lease may have a new owner, whose record stays.
      if (this.parts.lease.isHeld()) await this.parts.store.setSetting(LEASE_OWNER_SETTING, "").catch(() => undefined);
      await this.parts.store.close().catch(() => undefined);
      await this.parts.lease.release();
      await this.parts.onReleased();
      this.changed();
    }
  }
}
