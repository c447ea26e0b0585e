import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isSteamharnessError, SteamharnessError } from "../../../domain/errors.js";
import { listenOn } from "../shared/listen.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { Storage } from "../../../ports/storage.js";
import type { ApprovalGovernance } from "../../../app/approvals/answer-approval.js";
import type { TextFiles } from "../../../ports/text-files.js";
import type { ViewerAssets } from "../../../ports/viewer-assets.js";
import { answerFromViewer, parseViewerAnswer } from "./viewer-decisions.js";
import { checkViewerRequest } from "./viewer-security.js";
import { createViewerSessions } from "./viewer-sessions.js";
import { sessionCatalogOf } from "./session-catalog-of.js";
import { createSessionFacts } from "./session-facts.js";
import { forkFromViewer, parseViewerFork, viewerForks } from "./viewer-forks.js";
import { viewerReplay } from "./viewer-replays.js";
import { listProjects, namesOf, withRecordedDecisions } from "./viewer-listing.js";

/** Options of {@link createViewerServer}. */
export interface ViewerServerOptions {
  /** The storage whose sessions are shown, and where page decisions are recorded (`storage.values`). */
  storage: Storage;
  /** How sessions are listed; by default the catalog of the storage's session backend (SQLite: its session folders). */
  catalog?: SessionCatalog;
  /** The port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** The URL token; a random 256-bit one by default. */
  token?: string;
  /** The folder of the built page (`dist/viewer`); found next to the package by default. */
  assetsDirectory?: string;
  /** How often an open live stream looks at the session's head (default 200 ms). */
  pollMs?: number;
  /** The context window the ring gauge assumes when the log does not say (default 128 000). */
  contextWindow?: number;
  /**
   * Names of projects by id, shown instead of the bare id (VIEW-8); `steamharness view
   * <project-dir>` passes its `package.json` `name`. Without one, a project's name is read from
   * the `package.json` of the folder its runs worked in, when that file's `id` is the project's.
   */
  projectNames?: Readonly<Record<string, string>>;
  /**
   * Issue 47: the governed adapter the runs' tool approvals go through; a tool approval answered
   * in the page is recorded by its `decide()` as given at the viewer (GOV-1, GOV-4) before the
   * decision is stored for the run.
   */
  approvals?: ApprovalGovernance;
}

/** A running viewer. */
export interface ViewerServer {
  /** The page's URL, token included: `http://127.0.0.1:<port>/?token=…`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Stops serving, ends live streams and closes the session stores it opened (not the storage). */
  close(): Promise<void>;
}

const STATUS: Record<string, number> = { input_validation: 400, not_found: 404, conflict: 409, unavailable: 503 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  response.end(text);
}

async function readJson(request: IncomingMessage, limit = 1_000_000): Promise<unknown> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const part of request) {
    size += (part as Buffer).length;
    if (size > limit) throw new SteamharnessError("input_validation", "the body is too large", { field: "body" });
    parts.push(part as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString("utf8"));
  } catch {
    throw new SteamharnessError("input_validation", "the body is not JSON", { field: "body" });
  }
}

/** The page with a CSP that allows exactly its inline script and style (by hash) and no framing. */
function pageWithPolicy(html: string): { html: string; csp: string } {
  const hashes = (tag: "script" | "style") =>
    [...html.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, "g"))].map((match) => `'sha256-${createHash("sha256").update(match[1]!).digest("base64")}'`).join(" ");
  const csp = `default-src 'none'; script-src ${hashes("script")}; style-src ${hashes("style")}; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { html, csp };
}

/**
 * The run viewer's HTTP server (VIEW-1 … VIEW-4): on 127.0.0.1 only, every request needs the
 * token (401 without), a foreign `Host` is refused (403, DNS rebinding), writes need the token
 * header, JSON and a same-origin request. It serves the page and a small JSON API: the session
 * list (from the session catalog, never from the logs), a session's runs (an incremental index),
 * a session as a transcript (UI-7: messages, tool calls, decisions with who answered and the wait,
 * compactions),
 * a session's fork tree and "fork from here" (FORK-1: `viewer-forks.ts`), pages of raw events (`readAfter(afterSeq, { limit })`), a live stream of appended events
 * (server-sent events, polling the session head) and answers to waiting requests.
 *
 * @example
 * const viewer = await createViewerServer({ storage: createSqliteStorage({ directory: ".steamharness" }) }, services.localSessionCatalog, services.viewerAssets, services.textFiles);
 * console.log(viewer.url); // open it in a browser
 * await viewer.close();
 */
export async function createViewerServer(options: ViewerServerOptions, openFolderCatalog: (sessionFolder: string) => Promise<SessionCatalog>, assets: ViewerAssets, files: Pick<TextFiles, "read">): Promise<ViewerServer> {
  const { storage } = options;
  if (!storage.sessions) throw new SteamharnessError("input_validation", "the storage keeps no sessions (storage.sessions)", { field: "storage" });
  const backend = storage.sessions;
  const token = options.token ?? randomBytes(32).toString("base64url");
  const catalog = options.catalog ?? (await sessionCatalogOf(storage, openFolderCatalog));
  const ownsCatalog = options.catalog === undefined;
  const page = pageWithPolicy(assets.read("page", options.assetsDirectory ?? undefined));
  const sessions = createViewerSessions({ backend, catalog });
  const facts = createSessionFacts(backend, files, options.projectNames);
  const pollMs = options.pollMs ?? 200;
  const streams = new Set<ServerResponse>();
  let closing = false;
  let port = 0;

  const routes: Record<string, (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>> = {
    "GET /": async (_request, response) => {
      response.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "content-security-policy": page.csp,
        "x-frame-options": "DENY",
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
      });
      response.end(page.html);
    },
    "GET /api/config": async (_request, response) => send(response, 200, { contextWindow: options.contextWindow ?? 128_000, backend: backend.kind }),
    "GET /api/projects": async (_request, response) => {
      const entries = await catalog.list();
      send(response, 200, { projects: listProjects(entries, await facts.of(entries), facts) });
    },
    "GET /api/session": async (_request, response, url) => {
      const summary = await sessions.summary(url.searchParams.get("s") ?? "");
      send(response, 200, { ...summary, ...(await namesOf(summary.address, catalog, facts)), runs: await withRecordedDecisions(storage, summary.address.projectId, summary.runs) });
    },
    "GET /api/transcript": async (_request, response, url) => {
      const transcript = await sessions.transcript(url.searchParams.get("s") ?? "");
      send(response, 200, { ...transcript, ...(await namesOf(transcript.address, catalog, facts)) });
    },
    "GET /api/forks": async (_request, response, url) => send(response, 200, await viewerForks(backend, catalog, url.searchParams.get("s") ?? "")),
    "GET /api/replay": async (_request, response, url) => send(response, 200, await viewerReplay(backend, catalog, url.searchParams.get("s") ?? "", url.searchParams.get("runId") ?? "")),
    "POST /api/fork": async (request, response) => send(response, 200, await forkFromViewer(backend, parseViewerFork(await readJson(request)))),
    "GET /api/children": async (_request, response, url) => send(response, 200, { children: await sessions.childUsage(url.searchParams.get("s") ?? "", url.searchParams.get("runId") ?? "") }),
    "GET /api/events": async (_request, response, url) => {
      const session = await sessions.get(url.searchParams.get("s") ?? "");
      const after = Math.max(0, Number(url.searchParams.get("after") ?? 0) || 0);
      const limit = Math.min(1000, Math.max(1, Number(url.searchParams.get("limit") ?? 500) || 500));
      const head = await session.store.head();
      const events = await session.store.readAfter(after, { limit });
      send(response, 200, { events, lastSeq: head.lastSeq });
    },
    "GET /api/stream": async (request, response, url) => {
      const session = await sessions.get(url.searchParams.get("s") ?? "");
      let cursor = Math.max(0, Number(url.searchParams.get("after") ?? 0) || 0);
      response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" });
      response.write(": open\n\n");
      streams.add(response);
      let open = true;
      request.on("close", () => {
        open = false;
        streams.delete(response);
      });
      let idle = 0;
      while (open && !closing) {
        const head = await session.store.head().catch(() => null);
        if (head === null) break;
        if (head.lastSeq > cursor) {
          const events = await session.store.readAfter(cursor, { limit: 500 });
          cursor = events.at(-1)?.seq ?? head.lastSeq;
          response.write(`data: ${JSON.stringify({ events, lastSeq: head.lastSeq })}\n\n`);
          idle = 0;
          continue;
        }
        // A comment now and then: a dead connection is noticed, proxies keep it open.
        if (++idle % 50 === 0) response.write(": ping\n\n");
        await sleep(pollMs);
      }
      streams.delete(response);
      response.end();
    },
    "POST /api/answer": async (request, response) => {
      const answer = parseViewerAnswer(await readJson(request));
      send(response, 200, await answerFromViewer({ storage, sessions, ...(options.approvals ? { approvals: options.approvals } : {}) }, answer));
    },
  };

  const server = createServer((request, response) => {
    const refusal = checkViewerRequest(request, { token, port });
    if (refusal) return send(response, refusal.status, { error: { code: refusal.status === 401 ? "unauthorized" : "forbidden", message: refusal.reason } });
    const url = new URL(request.url ?? "/", `http://127.0.0.1:${port}`);
    const route = routes[`${request.method} ${url.pathname}`];
    if (!route) return send(response, 404, { error: { code: "not_found", message: "no such route" } });
    route(request, response, url).catch((error: unknown) => {
      if (response.headersSent) return response.end();
      const code = isSteamharnessError(error) ? error.code : "internal";
      send(response, STATUS[code] ?? 500, { error: { code, message: isSteamharnessError(error) ? error.message : "internal error", ...(isSteamharnessError(error) && error.field ? { field: error.field } : {}) } });
    });
  });
  ({ port } = await listenOn(server, { hostname: "127.0.0.1", port: options.port }));
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    async close() {
      closing = true;
      for (const stream of streams) stream.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sessions.close();
      if (ownsCatalog) await catalog.close();
    },
  };
}
