/**
 * The mechanism behind the in-memory approval and user-input adapters: a final answer sticks to
 * its request id (asking again returns it; no other id sees it), `pending` answers are listed
 * until resolved, and every request is recorded.
 *
 * @example
 * const sticky = createStickyRequests<ToolPermissionRequest, ToolPermissionDecision>((r) => ({ outcome: "pending" }));
 */
export function createStickyRequests<Req extends { requestId: string }, Res extends { outcome: string }>(
  answer: (request: Req) => Res | Promise<Res>,
) {
  const settled = new Map<string, Res>();
  const waiting = new Set<string>();
  const requests: Req[] = [];
  return {
    requests: requests as readonly Req[],
    async request(request: Req, signal?: AbortSignal): Promise<Res> {
      signal?.throwIfAborted();
      requests.push(structuredClone(request));
      const known = settled.get(request.requestId);
      if (known) return known;
      const response = await answer(request);
      if (response.outcome === "pending") waiting.add(request.requestId);
      else settled.set(request.requestId, response);
      return response;
    },
    resolve(requestId: string, response: Res): void {
      settled.set(requestId, response);
      waiting.delete(requestId);
    },
    pending: (): string[] => [...waiting],
  };
}
