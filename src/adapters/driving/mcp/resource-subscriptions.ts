import type { ProjectFiles } from "../../../ports/project-files.js";

/** Waits this long after the last change of a file before telling (editors write in bursts). */
const DEBOUNCE_MS = 50;

/**
 * The `resources/subscribe` state of one MCP connection (MCP-15): one file watch per
 * subscribed file-backed resource. A resource without a file (inline text or Base64) never
 * changes while served, so it is subscribed without a watcher.
 */
export interface ResourceSubscriptions {
  /** Subscribes `uri`, watching `path` (a real file path) when given; idempotent per URI. */
  subscribe(uri: string, path: string | null): void;
  /** Ends the subscription of `uri` and closes its watcher; unknown URIs are ignored. */
  unsubscribe(uri: string): void;
  /** How many watchers are open. */
  watching(): number;
  /** Closes every watcher (the connection closed); later subscribes are ignored. */
  close(): void;
}

interface Watched {
  watcher: { close(): void } | null;
  timer?: NodeJS.Timeout;
}

/**
 * Subscriptions that call `notify(uri)` once per burst of changes to a subscribed file. A file
 * replaced by a rename (how editors save) is watched again under its path; the watchers never
 * keep the process alive.
 *
 * @example
 * const subscriptions = createResourceSubscriptions((uri) => void server.sendResourceUpdated({ uri }), runner.ports.files);
 * subscriptions.subscribe("docs://readme", "/abs/project/README.md");
 */
export function createResourceSubscriptions(notify: (uri: string) => void, files: Pick<ProjectFiles, "watchFile" | "exists">): ResourceSubscriptions {
  const subscribed = new Map<string, Watched>();
  let closed = false;
  const stop = (entry: Watched) => {
    if (entry.timer) clearTimeout(entry.timer);
    entry.watcher?.close();
    entry.watcher = null;
  };
  const arm = (uri: string, path: string, entry: Watched) => {
    // A file that cannot be watched is still subscribed (watcher null); it just never tells.
    entry.watcher = files.watchFile(path, (event) => {
      if (entry.timer) clearTimeout(entry.timer);
      entry.timer = setTimeout(() => {
        entry.timer = undefined;
        if (subscribed.get(uri) !== entry) return;
        // A rename ends this watcher's inode: watch the path again if a file is there now.
        if (event === "rename") {
          entry.watcher?.close();
          entry.watcher = null;
          if (files.exists(path)) arm(uri, path, entry);
        }
        notify(uri);
      }, DEBOUNCE_MS);
      entry.timer.unref();
    });
  };
  return {
    subscribe(uri, path) {
      if (closed || subscribed.has(uri)) return;
      const entry: Watched = { watcher: null };
      subscribed.set(uri, entry);
      if (path !== null) arm(uri, path, entry);
    },
    unsubscribe(uri) {
      const entry = subscribed.get(uri);
      if (!entry) return;
      subscribed.delete(uri);
      stop(entry);
    },
    watching() {
      return [...subscribed.values()].filter((entry) => entry.watcher !== null).length;
    },
    close() {
      closed = true;
      for (const entry of subscribed.values()) stop(entry);
      subscribed.clear();
    },
  };
}
