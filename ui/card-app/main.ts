// The MCP Apps view of steamharness resource cards (VIEW-5): a host that supports MCP Apps
// renders this `ui://` resource in a sandboxed frame and sends it the tool result; the view draws
// the card of a knowledge or KV result (`structuredContent.resourceCard`) or of a
// `workflow-ui_present_card` command (`structuredContent.cardCommand`). It talks to the host only
// through the ext-apps `App` (postMessage), never to the network.
import { App } from "@modelcontextprotocol/ext-apps";
import { h, render } from "preact";
import htm from "htm";
import { Card, type CardLike } from "../shared/card.js";

const html = htm.bind(h);
const root = document.getElementById("app")!;

function draw(structured: Record<string, unknown> | undefined, isError: boolean): void {
  const card = structured?.resourceCard as CardLike | undefined;
  const command = structured?.cardCommand as (CardLike & { action?: string }) | undefined;
  if (isError) return render(html`<p class="muted">The tool failed; there is no card to show.</p>`, root);
  if (command?.action === "remove") return render(html`<p class="muted" data-testid="removed">Card <code>${command.cardId}</code> removed.</p>`, root);
  if (command) return render(html`<${Card} card=${command} note="present_card" />`, root);
  if (card) return render(html`<${Card} card=${card} />`, root);
  render(html`<p class="muted">No card in this result.</p>`, root);
}

const app = new App({ name: "steamharness-cards", version: "0.1.0" });
app.addEventListener("toolresult", (params) => draw(params.structuredContent as Record<string, unknown> | undefined, params.isError === true));
render(html`<p class="muted">Waiting for the tool result…</p>`, root);
await app.connect();
