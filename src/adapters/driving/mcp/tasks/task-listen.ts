/**
 * MCP-20: `subscriptions/listen` for task status on 2026-07-28 (SEP-2575's listen stream carries
 * SEP-2663's `notifications/tasks`). A listen request whose filter names `taskIds` is answered
 * here with a long-lived SSE stream: the `notifications/subscriptions/acknowledged` first, then one
 * `notifications/tasks` (the task as `tasks/get` answers it) each time a named task changes.
 *
 * The durable task store is the source of truth, so a change made by any host reaches a listener
 * on any other: the stream reads each named, not yet final task by its key every `pollMs` (no
 * scan: one primary-key read per task and tick), and sends what changed since it last looked.
 * Delivery bound: a change is on the wire within `pollMs` plus one store read of it being
 * committed, whichever host made it. A listen without `taskIds` stays the SDK's (list changes).
 */
import { SUBSCRIPTION_ID_META_KEY, type AuthInfo } from "@modelcontextprotocol/server";
import type { McpTaskRecord } from "../../../../ports/mcp-task-store.js";
import { tenantOfAuth } from "../transport/http-tenant.js";
import { detailedTaskOf } from "./tasks-extension.js";
import { isFinal } from "./task-runs.js";

/** How often a listen stream reads its tasks by default (the delivery bound across hosts). */
export const LISTEN_POLL_MS = 250;
/** The most tasks one listen stream may name (each is one keyed read per tick). */
export const LISTEN_MAX_TASKS = 100;
const KEEPALIVE_MS = 15_000;

/** Reads a task for a tenant with the task rules applied (`TaskRuns.read`). */
export type TaskReader = (taskId: string, tenant: string | null) => Promise<McpTaskRecord | null>;

/** A JSON-RPC request as the modern leg received it. */
interface ListenRequest {
  id?: string | number;
  method?: string;
  params?: { notifications?: { taskIds?: unknown } };
}

/**
 * The task ids a `subscriptions/listen` request names, or `undefined` when it is not one that
 * names tasks (then the SDK's listen router answers it).
 *
 * @example
 * if (listenedTaskIds(body)) return serveTaskListen(body, read, auth, signal);
 */
export function listenedTaskIds(body: unknown): unknown[] | undefined {
  const message = body as ListenRequest | null;
  if (typeof message !== "object" || message === null || Array.isArray(message) || message.method !== "subscriptions/listen") return undefined;
  const ids = message.params?.notifications?.taskIds;
  return Array.isArray(ids) ? ids : undefined;
}

const frame = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/**
 * Answers a `subscriptions/listen` that names tasks: an SSE `Response` that acknowledges the
 * filter and then delivers `notifications/tasks` for those tasks (only the caller's tenant's; an
 * unknown id is acknowledged and never reported) until the client goes (`signal`).
 *
 * @example
 * const response = serveTaskListen(body, (id, tenant) => runs.read(id, tenant), req.auth, gone.signal);
 */
export function serveTaskListen(body: unknown, read: TaskReader, auth: AuthInfo | undefined, signal: AbortSignal, options: { pollMs?: number } = {}): Response {
  const message = body as ListenRequest;
  const id = message.id ?? null;
  const ids = listenedTaskIds(body) ?? [];
  if (ids.length > LISTEN_MAX_TASKS || ids.some((taskId) => typeof taskId !== "string")) {
    const error = { code: -32602, message: `Invalid params: notifications.taskIds must be at most ${LISTEN_MAX_TASKS} task ids (strings)` };
    return Response.json({ jsonrpc: "2.0", id, error });
  }
  const taskIds = [...new Set(ids as string[])];
  const tenant = tenantOfAuth(auth) ?? null;
  const stamp = { [SUBSCRIPTION_ID_META_KEY]: id };
  const encoder = new TextEncoder();
  // What was last sent per task (status and update time); a final task is not read again.
  const sent = new Map<string, string>();
  const open = new Set(taskIds);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const close = () => {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        clearInterval(keepAlive);
        signal.removeEventListener("abort", close);
        try {
          controller.close();
        } catch {
          // Already cancelled by the reader.
        }
      };
      write(frame({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: { taskIds }, _meta: stamp } }));
      const tick = async () => {
        for (const taskId of [...open]) {
          const row = await read(taskId, tenant).catch(() => null);
          if (closed) return;
          if (!row) continue;
          const version = `${row.status}@${row.updatedAt}`;
          if (sent.get(taskId) !== version) {
            sent.set(taskId, version);
            write(frame({ jsonrpc: "2.0", method: "notifications/tasks", params: { ...detailedTaskOf(row), _meta: stamp } }));
          }
          if (isFinal(row.status)) open.delete(taskId);
        }
        if (!closed) timer = setTimeout(() => void tick(), options.pollMs ?? LISTEN_POLL_MS);
      };
      void tick();
      keepAlive = setInterval(() => write(": keepalive\n\n"), KEEPALIVE_MS);
      if (signal.aborted) close();
      else signal.addEventListener("abort", close, { once: true });
    },
    cancel() {
      closed = true;
      clearTimeout(timer);
      clearInterval(keepAlive);
    },
  });
  return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" } });
}
