/**
 * The run viewer as the library entries export it (VIEW-1, ARCH-6): the viewer surface with the
 * root's opener of a SQLite session folder's catalog, the default when the host passes none, and
 * the machine's files (the project names read from a run's workdir).
 */
import { createViewerServer as createServer, type ViewerServer, type ViewerServerOptions } from "../adapters/driving/viewer/viewer-server.js";
import { openLocalSessionCatalog } from "./surface-services.js";
import { localViewerAssets } from "../adapters/driven/system/viewer-assets.js";
import { localTextFiles } from "../adapters/driven/system/text-files.js";

/**
 * Starts the run viewer on 127.0.0.1 (VIEW-1): the sessions of `storage`, listed by `catalog`
 * (default: the SQLite session folder's catalog; another backend must pass its own).
 *
 * @example
 * const viewer = await createViewerServer({ storage: createSqliteStorage({ directory: ".steamharness" }) });
 * console.log(viewer.url);
 * await viewer.close();
 */
export function createViewerServer(options: ViewerServerOptions): Promise<ViewerServer> {
  return createServer(options, openLocalSessionCatalog, localViewerAssets, localTextFiles);
}
