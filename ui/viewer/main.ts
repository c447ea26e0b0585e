// The run viewer page (VIEW-1): Preact components written with htm (tagged templates, no JSX
// step), bundled by esbuild into one HTML file at `npm run build`.
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { ProjectList, SessionView } from "./lists.js";
import { RunView } from "./run-view.js";
import { TranscriptView } from "./transcript.js";

const html = htm.bind(h);

function route(hash: string): { page: "projects" } | { page: "session"; s: string } | { page: "transcript"; s: string } | { page: "run"; s: string; runId: string } {
  const run = /^#\/session\/([^/]+)\/run\/(.+)$/.exec(hash);
  if (run) return { page: "run", s: run[1]!, runId: decodeURIComponent(run[2]!) };
  const transcript = /^#\/session\/([^/]+)\/transcript$/.exec(hash);
  if (transcript) return { page: "transcript", s: transcript[1]! };
  const session = /^#\/session\/([^/]+)$/.exec(hash);
  if (session) return { page: "session", s: session[1]! };
  return { page: "projects" };
}

function App() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  const current = route(hash);
  return html`<main>
    <h1><span class="logo">◆</span> steamharness runs</h1>
    ${current.page === "projects" ? html`<${ProjectList} />` : current.page === "session" ? html`<${SessionView} s=${current.s} key=${current.s} />` : current.page === "transcript" ? html`<${TranscriptView} s=${current.s} key=${`${current.s}/transcript`} />` : html`<${RunView} s=${current.s} runId=${current.runId} key=${`${current.s}/${current.runId}`} />`}
  </main>`;
}

render(html`<${App} />`, document.getElementById("app")!);
