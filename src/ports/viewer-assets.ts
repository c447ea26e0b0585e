/** The built pages of the viewer: the run viewer's page, and the MCP Apps card view (VIEW-1, VIEW-5). */
export type ViewerAssetName = "page" | "cardApp";

/**
 * The viewer's built pages, as `npm run build` writes them (`dist/viewer/`). The surfaces that
 * serve them (the viewer, the MCP card view) take this from the composition root, so they read
 * no file themselves (ARCH-9).
 */
export interface ViewerAssets {
  /**
   * The page's HTML, read whole: from `directory` when given, else from the built pages found
   * next to the package. Throws `unavailable` naming the fix (`npm run build`) when it is not built.
   */
  read(name: ViewerAssetName, directory?: string): string;
}
