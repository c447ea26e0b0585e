// The set-up the viewer's browser tests share: the viewer's assets built into a temp folder, a
// real SQLite storage in another (both removed after the file), the file's own runs written to
// it, then the viewer server (polling every 50 ms) and headless Chromium — closed after the
// file's last test, browser first, then the viewer, then the storage.
import { afterAll } from "@jest/globals";
import type { Browser } from "playwright-core";
import type { ViewerServer, ViewerServerOptions } from "../../src/adapters/driving/viewer/viewer-server.js";
import { createViewerServer } from "../../src/compose/viewer.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { buildViewerAssets } from "../../ui/build.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { launchChromium } from "./browser.js";
import { openStorage } from "./fixtures.js";

/** What a viewer browser test runs against. */
export interface ViewerE2e {
  storage: SqliteStorage;
  viewer: ViewerServer;
  browser: Browser;
}

/**
 * Registers the file's teardown and gives the `start` its `beforeAll` calls: temp folders named
 * `<prefix>assets-…` and `<prefix>store-…`, `seed` run on the storage before the viewer starts.
 *
 * @example
 * const e2e = viewerE2e("viewer-budget-");
 * beforeAll(async () => ({ storage, viewer, browser } = await e2e.start(async (opened) => { storage = opened; … })), 180_000);
 */
export function viewerE2e(prefix: string): { start(seed?: (storage: SqliteStorage) => Promise<void>, options?: Partial<ViewerServerOptions>): Promise<ViewerE2e> } {
  const started: { storage?: SqliteStorage; viewer?: ViewerServer; closeBrowser?: () => Promise<void> } = {};
  afterAll(async () => {
    await started.closeBrowser?.();
    await started.viewer?.close();
    await started.storage?.close();
  });
  return {
    async start(seed = async () => {}, options = {}) {
      const assets = tempDirRemovedAfterAll(`${prefix}assets-`);
      await buildViewerAssets(assets);
      const storage = (started.storage = openStorage(tempDirRemovedAfterAll(`${prefix}store-`)));
      await seed(storage);
      const viewer = (started.viewer = await createViewerServer({ storage, assetsDirectory: assets, pollMs: 50, ...options }));
      const { browser, close } = await launchChromium();
      started.closeBrowser = close;
      return { storage, viewer, browser };
    },
  };
}
