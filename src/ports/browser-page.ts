/**
 * A browser page a surface serves whole (UI-6): its HTML, and the one script the HTML loads. The
 * surface reads no file: the composition root hands the page in, built (the `steamharness gateway
 * --ui` page is bundled from examples/web-chat by src/adapters/driven/system/web-chat-page.ts).
 */
export interface BrowserPage {
  /** The HTML document, served at `/`. */
  html: string;
  /** The script, an ES module served at the path the HTML names (`/web-chat.js`). */
  script: string;
}
