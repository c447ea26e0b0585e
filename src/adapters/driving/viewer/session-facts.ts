import { join } from "node:path";
import type { SessionBackend } from "../../../ports/session-backend.js";
import type { SessionCatalogEntry } from "../../../ports/session-catalog.js";
import type { SessionAddress } from "../../../ports/session-store.js";
import type { TextFiles } from "../../../ports/text-files.js";
import { viewerSessionId } from "./viewer-sessions.js";

/** What the session list shows of a session beside its address (VIEW-8). */
export interface ViewerSessionFacts {
  /** The session stopped to wait for a person (its last event is a `run_stopped` that waits). */
  waiting: boolean;
  /** The prompt of its first run, or `null` while it has none. */
  firstPrompt: string | null;
  /** When that run began. */
  firstAt: number | null;
  /** The folder its first run worked in (a project folder for `chat`, `gateway`, `run`). */
  workdir: string | null;
}

/** Longest conversation title drawn from a prompt, in code points. */
const TITLE_LENGTH = 80;

/**
 * A conversation's title: the prompt it began with, on one line and at most 80 characters — the
 * stores keep no title of their own, and this is the one a person recognises.
 *
 * @example
 * conversationTitle("Prepare the 1.0 release\nwith notes") // "Prepare the 1.0 release with notes"
 */
export function conversationTitle(prompt: string): string {
  const line = prompt.replace(/\s+/g, " ").trim();
  const points = [...line];
  return points.length <= TITLE_LENGTH ? line : `${points.slice(0, TITLE_LENGTH - 1).join("").trimEnd()}…`;
}

/**
 * The session-list facts of catalog entries: each session is opened unleased (never disturbing
 * its run) and read for its first `run_started` and its last event — two keyed reads, not a
 * scan — and read again only when the catalog says it changed (`updatedAt`). Project names come
 * from `names`, else from the `package.json` of a project folder a run worked in whose `id` is
 * the project's.
 *
 * @example
 * const facts = createSessionFacts(storage.sessions!, services.textFiles, { [manifest.id]: manifest.name });
 * const { waiting } = (await facts.of(await catalog.list())).get(viewerSessionId(address))!;
 */
export function createSessionFacts(backend: SessionBackend, files: Pick<TextFiles, "read">, names: Readonly<Record<string, string>> = {}) {
  const known = new Map<string, ViewerSessionFacts & { updatedAt: number }>();
  const projectNames = new Map<string, string>(Object.entries(names));
  // Folders already looked at for a project's name (a folder of another project is not read again).
  const tried = new Set<string>();

  const read = async (address: SessionAddress): Promise<ViewerSessionFacts | null> => {
    const store = await backend.openUnleased({ address, create: false }).catch(() => null);
    if (!store) return null;
    try {
      const head = await store.head();
      const [first] = await store.readAfter(0, { types: ["run_started"], limit: 1 });
      const [last] = head.lastSeq > 0 ? await store.readAfter(head.lastSeq - 1, { limit: 1 }) : [];
      const start = first?.type === "run_started" ? first.payload : null;
      return {
        waiting: last?.type === "run_stopped" && last.payload.status === "waiting",
        firstPrompt: start?.prompt ?? null,
        firstAt: start ? (start.startedAt ?? first!.at) : null,
        workdir: start?.workdir ?? null,
      };
    } catch {
      return null;
    } finally {
      await store.close().catch(() => undefined);
    }
  };

  return {
    /** The facts of every entry that could be read, by viewer session id. */
    async of(entries: readonly SessionCatalogEntry[]): Promise<Map<string, ViewerSessionFacts>> {
      const facts = new Map<string, ViewerSessionFacts>();
      for (const entry of entries) {
        const id = viewerSessionId(entry.address);
        let fact = known.get(id);
        if (fact === undefined || fact.updatedAt !== entry.updatedAt) {
          const fresh = await read(entry.address);
          if (fresh === null) continue;
          known.set(id, (fact = { ...fresh, updatedAt: entry.updatedAt }));
        }
        facts.set(id, fact);
        const { projectId } = entry.address;
        if (!projectNames.has(projectId) && fact.workdir !== null && !tried.has(`${projectId}\u0000${fact.workdir}`)) {
          tried.add(`${projectId}\u0000${fact.workdir}`);
          const name = await manifestName(files, fact.workdir, projectId);
          if (name !== null) projectNames.set(projectId, name);
        }
      }
      return facts;
    },
    /** The project's name, or `null` when none is known. */
    projectName(projectId: string): string | null {
      return projectNames.get(projectId) ?? null;
    },
  };
}

/** The `name` of `<folder>/package.json` when its `id` is `projectId`. */
async function manifestName(files: Pick<TextFiles, "read">, folder: string, projectId: string): Promise<string | null> {
  try {
    const manifest = JSON.parse(await files.read(join(folder, "package.json"))) as { id?: unknown; name?: unknown };
    return manifest.id === projectId && typeof manifest.name === "string" && manifest.name !== "" ? manifest.name : null;
  } catch {
    return null;
  }
}

/** The facts cache returned by {@link createSessionFacts}. */
export type SessionFacts = ReturnType<typeof createSessionFacts>;
