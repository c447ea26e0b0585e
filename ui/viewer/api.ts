// The page's side of the viewer API: every request carries the URL token in a header; writes
// are JSON POSTs from this origin only (the server refuses anything else, VIEW-4).
const token = new URLSearchParams(location.search).get("token") ?? "";

export async function getJson<T>(path: string, params: Record<string, string | number> = {}): Promise<T> {
  const query = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)]));
  const response = await fetch(`${path}?${query}`, { headers: { "x-steamharness-token": token } });
  const body = await response.json();
  if (!response.ok) throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-steamharness-token": token },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer?.error?.message ?? `HTTP ${response.status}`);
  return answer as T;
}

/** A live stream of appended events (server-sent events; EventSource cannot send headers). */
export function openStream(s: string, after: number, onEvents: (events: unknown[], lastSeq: number) => void): () => void {
  const source = new EventSource(`/api/stream?${new URLSearchParams({ s, after: String(after), token })}`);
  source.onmessage = (message) => {
    const data = JSON.parse(message.data) as { events: unknown[]; lastSeq: number };
    onEvents(data.events, data.lastSeq);
  };
  return () => source.close();
}

export const hrefWithToken = (hash: string): string => `?${new URLSearchParams({ token })}${hash}`;
