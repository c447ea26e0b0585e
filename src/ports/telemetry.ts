import type { TokenCounts } from "./token-usage.js";

/**
 * The telemetry port (OBS-1): what the application reports about its work — a run and each of
 * its model calls, tool calls, approval waits, compactions and retries (a resume after a crash
 * or on another host is an event of the resumed part), the session leases a run or a session host
 * takes (acquire, takeover, loss), and the requests of the MCP server and the gateway. The library's default is a no-op
 * (`HarnessRuntime.telemetry`); `steamharness/opentelemetry` maps the same calls to OpenTelemetry
 * spans and metrics under the GenAI semantic conventions. Nothing here may throw into the
 * caller or block it: an adapter that fails drops the report.
 */

/** A span's W3C trace context as text: the `traceparent` and `tracestate` header values. */
export interface TelemetryCarrier {
  traceparent: string;
  tracestate?: string;
}

/** Attribute values a report may carry; `undefined` entries are left out. */
export type TelemetryAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** One timed piece of work. Every method is safe to call after `end` (it does nothing). */
export interface TelemetrySpan {
  /** A point in time on this span (a retry, a takeover, a lease). */
  event(name: string, attributes?: TelemetryAttributes): void;
  /** Attributes known only once the work has started (the response model, a status). */
  set(attributes: TelemetryAttributes): void;
  /** Ends the span; `error` (a short code such as `model_error`) marks it failed as `error.type`. Idempotent. */
  end(outcome?: { error?: string; attributes?: TelemetryAttributes }): void;
  /** The span's context for another process or a stored record; `null` when nothing is recorded. */
  carrier(): TelemetryCarrier | null;
}

/** A model call (one attempt of one step). */
export interface TelemetryModelCall extends TelemetrySpan {
  /**
   * Ends the call with what the provider reported: usage (cache tokens where reported), the
   * response's model and finish reason, and — only when `Telemetry.captureContent` — the output.
   * Records the token-usage and duration metrics. Idempotent; after it, `end` does nothing.
   */
  finish(outcome: { usage: TokenCounts; responseModel?: string; finishReason: string; error?: string; output?: unknown }): void;
}

/** What a run reports; built by {@link Telemetry.run}. */
export interface TelemetryRun extends TelemetrySpan {
  /** Whether content may be reported on this run's spans ({@link Telemetry.captureContent}). */
  readonly captureContent: boolean;
  /**
   * The context of the run's root, to be stored with the run and handed back as
   * `TelemetryRunInfo.stored` when the run resumes (in another process or on another host), so
   * every part of the run is one trace. `null` when nothing is recorded.
   */
  root(): TelemetryCarrier | null;
  /** A model request. `input` (the request's messages) is given only when content capture is on. */
  modelCall(info: { step: number; attempt: number; input?: unknown }): TelemetryModelCall;
  /** A tool call. `arguments` only when content capture is on; end it with `attributes.result` likewise. */
  toolCall(info: { name: string; callId: string; arguments?: unknown }): TelemetrySpan;
  /**
   * A wait for a person's decision (tool approval or question). `startedAt` (epoch ms) when the
   * wait began earlier, in a run segment that paused. Ending it records the approval-wait metric.
   */
  approvalWait(info: { kind: "tool_approval" | "question"; toolName: string; callId: string; startedAt?: number }): TelemetrySpan;
  /** A compaction of the context. */
  compaction(info: { step: number; trigger: string }): TelemetrySpan;
  /** A model retry (its kind: `dropped`, `recovery`, `length`, `lost-call`, …). */
  retry(info: { kind: string; attempt: number; max: number; status?: number; message: string }): void;
  /**
   * A lease event of the run's session (the run took the session's lease itself): an event on
   * this part's span. `takeover` when the run resumes after an earlier part ended without a stop
   * record — its process died holding the lease, which the storage freed.
   */
  lease(info: TelemetryLeaseInfo): void;
  /** Ends this part of the run with its status (`completed`, `waiting`, `cancelled`, `failed`). Records the run-duration metric. */
  finish(outcome: { status: string; error?: string; usage?: TokenCounts }): void;
}

/** What a run is; identifies it on every span it reports. */
export interface TelemetryRunInfo {
  runId: string;
  /** The agent's name (`gen_ai.agent.name`). */
  agentName: string;
  /** The conversation (session) the run belongs to (`gen_ai.conversation.id`, on every span). */
  conversationId: string;
  /** The provider (`gen_ai.provider.name`) and requested model of the run. */
  provider: string;
  model: string;
  /** The stored root of this run when it resumes ({@link TelemetryRun.root} of an earlier part). */
  stored?: TelemetryCarrier | null;
  /** Why an earlier part ended when resuming: `paused` (a stop record) or `interrupted` (a crash, no stop record). */
  resumedAfter?: "paused" | "interrupted" | "stopped";
  /** The parent of a new run: an MCP tool call, a gateway request, a workflow. */
  parent?: TelemetryCarrier | null;
}

/**
 * A session lease event (SES-2 leases are held, never renewed: a lease ends on release or when its
 * holder's process or database connection ends, so the events are these, not renewals):
 * - `acquired`: a free session was taken (nobody held it, or its last owner released it);
 * - `takeover`: the session was taken after its last owner ended without releasing it (its
 *   process was killed, its machine or connection vanished) — on another host or in a new process;
 * - `lost`: the holder found its lease gone while it still meant to hold it (its connection died).
 * Only ids are reported: never a connection string, path or credential.
 */
export interface TelemetryLeaseInfo {
  event: "acquired" | "takeover" | "lost";
  /** The session's address. */
  projectId: string;
  conversationId?: string;
  sessionKey: string;
  /** Who holds (or held, for `lost`) the lease: a run id or a session host id. */
  ownerId: string;
  /** For `takeover`: the owner that ended without releasing, when it is known. */
  previousOwnerId?: string;
  /** When the acquire began (epoch ms); a lease span then covers the acquire. Default: now. */
  startedAt?: number;
}

/** A request served by a driving surface (`steamharness mcp`, the gateway). */
export interface TelemetryRequestInfo {
  /** `mcp.method.name` (`tools/call`) or the HTTP method. */
  method: string;
  /** The MCP tool or the HTTP route. */
  target?: string;
  /** The JSON-RPC request id (MCP). */
  requestId?: string | number;
  /** The caller's trace context (`params._meta.traceparent` or the `traceparent` header). */
  parent?: TelemetryCarrier | null;
}

/** The telemetry port itself. */
export interface Telemetry {
  /** False for the no-op: callers may skip building what they would report. */
  readonly enabled: boolean;
  /** Whether messages and tool content may be reported (the host opted in); the adapter redacts secrets. */
  readonly captureContent: boolean;
  /** Starts (or resumes) a run. */
  run(info: TelemetryRunInfo): TelemetryRun;
  /**
   * A lease event outside any run (a session host taking, taking over or losing its session): a
   * short span of its own, `steamharness.lease.<event>`, with the address and owner ids.
   */
  lease(info: TelemetryLeaseInfo): void;
  /** A request to `steamharness mcp` (an MCP server span). */
  mcpRequest(info: TelemetryRequestInfo): TelemetrySpan;
  /** A request to the gateway (an HTTP server span). */
  gatewayRequest(info: TelemetryRequestInfo): TelemetrySpan;
  /** Exports what is buffered (before a process exits). Resolves when done or on failure. */
  flush(): Promise<void>;
}
