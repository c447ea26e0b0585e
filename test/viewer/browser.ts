// Real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, with the flags
// this machine needs (no sandbox as root, no background networking on a closed network).
// playwright starts every launch with a fresh, empty user-data-dir of its own.
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return { browser, close: () => browser.close() };
}
