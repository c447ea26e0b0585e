// A session's forks (issue 46, FORK-1): where it was forked from and what its parent did after
// the point (the hazard report, FORK-2), the fork tree it belongs to, and the "fork from here"
// button every transcript entry has. Everything is rendered as text (htm escapes).
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { getJson, hrefWithToken, postJson } from "./api.js";
import type { ViewerForkNode, ViewerForks } from "../../src/adapters/driving/viewer/viewer-forks.js";

const html = htm.bind(h);

function TreeNode({ node, s }: { node: ViewerForkNode; s: string }) {
  const label = node.id === s ? html`<b data-testid="fork-current">${node.address.sessionKey}</b>` : html`<a href=${hrefWithToken(`#/session/${node.id}`)}>${node.address.sessionKey}</a>`;
  return html`<li data-testid="fork-node" data-session=${node.address.sessionKey}>
    ${label}${node.atSeq === null ? "" : html` <span class="muted">after event ${node.atSeq}</span>`}
    ${node.children.length === 0 ? "" : html`<ul>${node.children.map((child) => html`<${TreeNode} node=${child} s=${s} key=${child.id} />`)}</ul>`}
  </li>`;
}

/** The fork record and tree of session `s` (nothing when it is no fork and has none). */
export function ForkPanel({ s, lastSeq }: { s: string; lastSeq: number }) {
  const [body, setBody] = useState<ViewerForks | null>(null);
  useEffect(() => {
    getJson<ViewerForks>("/api/forks", { s }).then(setBody, () => undefined);
  }, [s, lastSeq]);
  if (!body || (body.fork === null && body.tree.children.length === 0)) return "";
  const { fork } = body;
  return html`<section class="forks" data-testid="forks">
    ${fork
      ? html`<p data-testid="fork-parent">Forked from <a href=${hrefWithToken(`#/session/${fork.parent.id}`)}>${fork.parent.address.sessionKey}</a> after event ${fork.atSeq}${fork.effects === "recorded" ? " (repeats answered from the recording)" : ""}.</p>
          ${fork.hazards.length === 0
            ? html`<p class="muted" data-testid="no-hazards">The parent made no tool calls after this point.</p>`
            : html`<p>The parent's tool calls after this point; an unsafe one repeated here needs a fresh decision:</p>
                <ul class="hazards">${fork.hazards.map((hazard) => html`<li data-testid="hazard" data-replay=${hazard.replay} key=${hazard.toolCallId}><span class="tool-name">${hazard.toolName}</span> <code>${JSON.stringify(hazard.arguments)}</code> <span class=${`badge replay-${hazard.replay}`}>${hazard.replay}</span>${hazard.ran ? " ran" : ""}${hazard.approval ? ` · ${hazard.approval}` : ""} — ${hazard.summary}</li>`)}</ul>`}`
      : ""}
    <details open><summary>Fork tree</summary><ul class="fork-tree" data-testid="fork-tree"><${TreeNode} node=${body.tree} s=${s} /></ul></details>
  </section>`;
}

/** "Fork from here": forks the session after event `seq` and opens the fork's page. */
export function ForkButton({ s, seq }: { s: string; seq: number }) {
  const [error, setError] = useState<string | null>(null);
  const fork = () =>
    postJson<{ s: string }>("/api/fork", { s, seq }).then(
      (answer) => void (location.hash = `#/session/${answer.s}`),
      (e: Error) => setError(e.message),
    );
  return html`<button class="fork-button" data-testid="fork-here" data-seq=${seq} title=${`a new session with this session's events up to ${seq}`} onClick=${fork}>fork from here</button>${error ? html` <span class="error">${error}</span>` : ""}`;
}
