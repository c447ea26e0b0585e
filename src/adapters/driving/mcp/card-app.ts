/**
 * MCP Apps views of resource cards (VIEW-5): for a client that announces the MCP Apps extension
 * (`capabilities.extensions["io.modelcontextprotocol/ui"]` with the `text/html;profile=mcp-app`
 * MIME type), the card-producing capability tools (knowledge, KV, present_card) name a `ui://`
 * resource in their `_meta.ui.resourceUri`, and the server serves that resource: a self-contained
 * HTML view (built into dist/viewer/card-app.html) that draws the result's card. Constants and the
 * capability check come from `@modelcontextprotocol/ext-apps` (2.x, on the SDK's v2 line), loaded
 * only when a client asks. The tool results themselves are unchanged: a client without the
 * extension sees the same listing and the same text as before.
 */
import type { Server, Tool } from "@modelcontextprotocol/server";
import { SteamharnessError } from "../../../domain/errors.js";
import { CAPABILITY_TOOL_IDS } from "../../../domain/capabilities/catalog.js";
import type { ViewerAssets } from "../../../ports/viewer-assets.js";

/** The `ui://` resource of the card view. */
export const CARD_APP_URI = "ui://steamharness/resource-card.html";

/** The capability tools whose results carry a card (CAP-9, CAP-10). */
export const CARD_TOOL_IDS: readonly string[] = [CAPABILITY_TOOL_IDS.knowledge, CAPABILITY_TOOL_IDS.kv, CAPABILITY_TOOL_IDS.presentCard];

const extApps = () => import("@modelcontextprotocol/ext-apps/server");

/**
 * Whether the connected client renders MCP Apps views (its `initialize` capabilities).
 *
 * @example
 * if (await clientSupportsMcpApps(server)) tool = withCardApp(tool);
 */
export async function clientSupportsMcpApps(server: Server): Promise<boolean> {
  const capabilities = server.getClientCapabilities();
  if (!capabilities?.extensions) return false;
  const { getUiCapability, RESOURCE_MIME_TYPE } = await extApps();
  return getUiCapability(capabilities)?.mimeTypes?.includes(RESOURCE_MIME_TYPE) ?? false;
}

/**
 * The tool as listed to an MCP Apps client: the same name, description and schema, plus
 * `_meta.ui.resourceUri` (and the older flat `ui/resourceUri` key, which hosts still read).
 *
 * @example
 * withCardApp(capabilityMcpTool(kvCapability))._meta // { ui: { resourceUri: "ui://steamharness/resource-card.html" }, … }
 */
export function withCardApp(tool: Tool): Tool {
  return { ...tool, _meta: { ...(tool._meta ?? {}), ui: { resourceUri: CARD_APP_URI }, "ui/resourceUri": CARD_APP_URI } };
}

/**
 * Serves the card view as a resource on `server` (which must declare the `resources` capability):
 * `resources/list` names it, `resources/read` returns the built HTML with the MCP Apps MIME type.
 * The HTML is read on first use; an unbuilt package answers `unavailable`.
 *
 * @example
 * serveCardApp(server, { assets: localViewerAssets });
 */
export function serveCardApp(server: Server, options: { assets: ViewerAssets; assetsDirectory?: string }): void {
  let html: string | undefined;
  server.setRequestHandler("resources/list", async () => {
    const { RESOURCE_MIME_TYPE } = await extApps();
    return { resources: [{ uri: CARD_APP_URI, name: "resource-card", title: "Resource card", description: "MCP Apps view of a steamharness resource card", mimeType: RESOURCE_MIME_TYPE }] };
  });
  server.setRequestHandler("resources/read", async (request) => {
    if (request.params.uri !== CARD_APP_URI) throw new SteamharnessError("not_found", `unknown resource ${request.params.uri}`, { field: "uri" });
    const { RESOURCE_MIME_TYPE } = await extApps();
    html ??= options.assets.read("cardApp", options.assetsDirectory);
    // The view needs no network: an empty CSP domain list keeps the host's strictest default.
    return { contents: [{ uri: CARD_APP_URI, mimeType: RESOURCE_MIME_TYPE, text: html, _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } } }] };
  });
}
