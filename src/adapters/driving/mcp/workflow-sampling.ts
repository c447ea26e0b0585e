import { ResultSchema } from "@modelcontextprotocol/core";
import { ProtocolError, SdkError, SdkErrorCode, type Server } from "@modelcontextprotocol/server";
import { SteamharnessError } from "../../../domain/errors.js";
import type { WorkflowSamplingRequest, WorkflowSamplingResult } from "../../../domain/workflow/sampling.js";
import type { RunHandlers } from "../../../ports/workflow-workers.js";
import { canAskClient } from "./workflow-elicitation.js";

/** How long the client's model (and the person who may review the request) may take by default: ten minutes. */
export const SAMPLING_TIMEOUT_MS = 600_000;

/** Options of {@link createSamplingHandler}. */
export interface SamplingHandlerOptions {
  /** The tool call's signal: aborting it abandons the open sampling request (the client gets `notifications/cancelled`). */
  signal: AbortSignal;
  /** The `tools/call` request the sampling belongs to: over HTTP the request travels on that call's response stream. */
  relatedRequestId?: string | number;
  /** How long the client may take to answer one request; {@link SAMPLING_TIMEOUT_MS} by default. */
  timeoutMs?: number;
}

/**
 * Sends one request to the calling client on the call's stream (sampling, roots): either the
 * call's signal or the run's (its own abort, or the run ended) withdraws it, and the listeners go
 * when it settles, so a long call does not collect them. Failures are typed: `cancelled`,
 * `timeout`, else `sampling_failed` naming what the client did not do.
 */
async function requestClient(server: Server, options: SamplingHandlerOptions, signal: AbortSignal, request: { method: string; params?: Record<string, unknown> }, what: string): Promise<unknown> {
  const timeout = options.timeoutMs ?? SAMPLING_TIMEOUT_MS;
  const controller = new AbortController();
  const abort = () => controller.abort();
  const sources = [options.signal, signal];
  for (const source of sources) source.addEventListener("abort", abort, { once: true });
  if (sources.some((source) => source.aborted)) abort();
  try {
    return await server.request(request as Parameters<Server["request"]>[0], ResultSchema, {
      signal: controller.signal,
      timeout,
      ...(options.relatedRequestId !== undefined ? { relatedRequestId: options.relatedRequestId } : {}),
    });
  } catch (error) {
    if (controller.signal.aborted) throw new SteamharnessError("cancelled", `the ${request.method} request was cancelled`);
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      throw new SteamharnessError("timeout", `the MCP client did not answer the ${request.method} request within ${timeout} ms`, { data: { timeoutMs: timeout } });
    }
    const code = error instanceof ProtocolError ? error.code : null;
    throw new SteamharnessError("sampling_failed", `the MCP client did not ${what}: ${(error as Error)?.message ?? String(error)}`, { data: { mcpCode: code } });
  } finally {
    for (const source of sources) source.removeEventListener("abort", abort);
  }
}

/**
 * MCP sampling for a run called by `tools/call`: the run's `context.sampling.createMessage`
 * becomes `sampling/createMessage` to the calling client, related to the call, and the client's
 * answer is checked (TypeBox) before the run sees it. A client without the `sampling`
 * capability gives `sampling_unavailable` without being asked; an error answer (the person
 * declined, the model failed) or a malformed one gives `sampling_failed`; no answer within the
 * timeout gives `timeout`; the call's or the run's abort gives `cancelled` and tells the client.
 * Every rejection reaches the run as a typed error the workflow may catch.
 *
 * @example
 * const handlers = { ...createElicitationHandlers(server, { signal }), onSampling: createSamplingHandler(server, { signal, relatedRequestId: extra.requestId }) };
 */
export function createSamplingHandler(server: Server, options: SamplingHandlerOptions): NonNullable<RunHandlers["onSampling"]> {
  return async (request: WorkflowSamplingRequest, signal: AbortSignal): Promise<WorkflowSamplingResult> => {
    if (!canAskClient(server)) {
      throw new SteamharnessError("sampling_unavailable", "sampling is unavailable: the MCP client called this run on the 2026-07-28 revision, which has no server-to-client requests");
    }
    if (server.getClientCapabilities()?.sampling === undefined) {
      throw new SteamharnessError("sampling_unavailable", "sampling is unavailable: the MCP client that called this run did not declare the sampling capability");
    }
    // TypeBox loads with the first sampling request, not with the server (stdio start-up, MCP-10).
    const { checkSamplingRequest, checkSamplingResult } = await import("../../../domain/workflow/sampling.js");
    // The worker checked it already; the host does not trust a message from project code.
    const params = checkSamplingRequest(request);
    const answer = await requestClient(server, options, signal, { method: "sampling/createMessage", params }, "sample");
    return checkSamplingResult(answer);
  };
}

/**
 * MCP-19 on 2025-11-25: a run's `context.roots.list` becomes `roots/list` to the calling client,
 * on the call's stream, its answer checked before the run sees it. A client without the `roots`
 * capability gives `unavailable` without being asked; a failed or malformed answer gives
 * `sampling_failed`; the call's or the run's abort gives `cancelled`.
 *
 * @example
 * const onRoots = createRootsHandler(server, { signal, relatedRequestId: ctx.mcpReq.id });
 */
export function createRootsHandler(server: Server, options: SamplingHandlerOptions): NonNullable<RunHandlers["onRoots"]> {
  return async (signal: AbortSignal) => {
    if (!canAskClient(server) || server.getClientCapabilities()?.roots === undefined) {
      throw new SteamharnessError("unavailable", "roots are unavailable: the MCP client that called this run did not declare the roots capability");
    }
    const { checkRootsResult } = await import("../../../domain/workflow/sampling.js");
    const answer = await requestClient(server, options, signal, { method: "roots/list" }, "list its roots");
    return checkRootsResult(answer);
  };
}
