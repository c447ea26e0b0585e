/**
 * The fenced code blocks of README.md and docs/*.md, with the `<!-- docs-test: … -->` directives
 * written right before them (DX-3). The convention is described in the README's contributing
 * section; this module only reads it, the test (`docs-blocks.test.ts`) acts on it.
 *
 * Directives (one comment line each, or several separated by `;`):
 * - `skip <reason>` — not checked: not a program (a listing, a shape with elisions, output), or a
 *   command that cannot run offline in a test (`npm install`); the reason is required.
 * - `postgres` — needs a PostgreSQL server: `DATABASE_URL` is set from
 *   `STEAMHARNESS_TEST_POSTGRES_URL` (skipped, by name, when it is unset outside CI).
 * - `env NAME=value …` — extra environment variables for the run.
 * - `loopback anthropic` | `loopback openai` — a loopback provider answers on
 *   `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, with a key in `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`.
 * - `gateway <project-dir>` — a `steamharness gateway` on that project (a copy of `examples/`)
 *   runs during the block: `STEAMHARNESS_GATEWAY_URL` and `STEAMHARNESS_GATEWAY_TOKEN` (one
 *   gateway per project folder, shared by the blocks that name it: each starts its own conversations).
 * - `config-server port=<n>` — a `steamharness server` (SQLite, its admin key in the file
 *   `admin-key` of the working folder) runs during the block on a free port, which replaces the
 *   literal `<n>` in the block (the page's own "start it" block, already run by then).
 * - `oauth-issuer port=<n>` — the local development authorization server
 *   (`examples/dev/oauth-issuer.ts`) runs during the block on a free port, which replaces `<n>`
 *   (one issuer per literal port, shared by the blocks that name it).
 * - `ports <n> <m> …` — each literal port is replaced by a free one (servers the block starts itself).
 * - `server` or `server port=<n>` — the block serves until stopped: the test waits for the
 *   `http://127.0.0.1:<port>…` URL it prints, requests it once, then stops it (SIGTERM). With
 *   `port=<n>`, the literal port `<n>` in the block is replaced by a free one.
 * - `mcp-stdio` — the block serves MCP over stdio: the test sends `initialize` and `tools/list`,
 *   waits for both answers, then closes stdin.
 * - `jest` — the block is a test file: run by jest (ESM mode, as the repository's own tests).
 * - `file <path>` — the block is also written to `<path>` in the working folder of every block of
 *   the same page (a project folder a later block loads).
 * - `continues` — the block continues the previous checked block of the page: both are checked
 *   and run as one program (TypeScript blocks, and `sh` blocks that share a shell: a server
 *   started in one and the requests of the next).
 * - `help <command>` — a `text` block quoting `steamharness <command> --help` (a synopsis): it
 *   must read exactly as a part of that help (DX-18, test/package/docs-commands.test.ts).
 */
import { readFileSync } from "node:fs";

/** The directives of one block. */
export interface BlockDirectives {
  skip?: string;
  postgres: boolean;
  env: Record<string, string>;
  loopback?: "anthropic" | "openai";
  gateway?: string;
  configServer?: { port: number };
  oauthIssuer?: { port: number };
  ports: number[];
  server?: { port?: number };
  mcpStdio: boolean;
  jest: boolean;
  file?: string;
  continues: boolean;
  help?: string;
}

/** One fenced block. */
export interface DocBlock {
  /** `README.md:37` — the file and the line of the opening fence. */
  id: string;
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  directives: BlockDirectives;
  /** Problems with the block's fence or directives (unknown directive, missing reason …). */
  problems: string[];
}

const DIRECTIVE = /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;
const FENCE = /^(\s*)(```+|~~~+)\s*([^\s`]*)\s*$/;

function parseDirectives(texts: string[], problems: string[]): BlockDirectives {
  const directives: BlockDirectives = { postgres: false, env: {}, mcpStdio: false, jest: false, continues: false, ports: [] };
  for (const part of texts.flatMap((text) => text.split(";")).map((s) => s.trim()).filter(Boolean)) {
    const [word, ...rest] = part.split(/\s+/);
    const argument = part.slice(word!.length).trim();
    switch (word) {
      case "skip":
        if (!argument) problems.push("`skip` needs a reason");
        directives.skip = argument;
        break;
      case "postgres":
        directives.postgres = true;
        break;
      case "env":
        for (const pair of rest) {
          const eq = pair.indexOf("=");
          if (eq <= 0) problems.push(`\`env\` takes NAME=value pairs, got ${pair}`);
          else directives.env[pair.slice(0, eq)] = pair.slice(eq + 1);
        }
        break;
      case "loopback":
        if (argument !== "anthropic" && argument !== "openai") problems.push(`\`loopback\` is anthropic or openai, got ${argument}`);
        else directives.loopback = argument;
        break;
      case "gateway":
        if (!argument) problems.push("`gateway` needs a project folder");
        directives.gateway = argument;
        break;
      case "server": {
        const port = /^port=(\d+)$/.exec(argument);
        if (argument && !port) problems.push(`\`server\` takes nothing or port=<n>, got ${argument}`);
        directives.server = port ? { port: Number(port[1]) } : {};
        break;
      }
      case "config-server": {
        const port = /^port=(\d+)$/.exec(argument);
        if (!port) problems.push(`\`config-server\` takes port=<n>, got ${argument}`);
        else directives.configServer = { port: Number(port[1]) };
        break;
      }
      case "oauth-issuer": {
        const port = /^port=(\d+)$/.exec(argument);
        if (!port) problems.push(`\`oauth-issuer\` takes port=<n>, got ${argument}`);
        else directives.oauthIssuer = { port: Number(port[1]) };
        break;
      }
      case "ports":
        if (rest.length === 0 || rest.some((port) => !/^\d+$/.test(port))) problems.push(`\`ports\` takes port numbers, got ${argument}`);
        else directives.ports.push(...rest.map(Number));
        break;
      case "mcp-stdio":
        directives.mcpStdio = true;
        break;
      case "jest":
        directives.jest = true;
        break;
      case "file":
        if (!argument || argument.startsWith("/") || argument.includes("..")) problems.push(`\`file\` needs a relative path, got ${argument}`);
        directives.file = argument;
        break;
      case "continues":
        directives.continues = true;
        break;
      case "help":
        directives.help = argument;
        break;
      default:
        problems.push(`unknown docs-test directive: ${part}`);
    }
  }
  return directives;
}

/**
 * The fenced blocks of one markdown file, with their directives.
 *
 * @example
 * extractBlocks("README.md").filter((block) => block.lang === "ts")
 */
export function extractBlocks(file: string, text = readFileSync(file, "utf8")): DocBlock[] {
  const lines = text.split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      if (line.trim().startsWith(fence!) && line.trim().replace(/[`~]/g, "") === "") break;
      body.push(line.startsWith(indent!) ? line.slice(indent!.length) : line);
    }
    const problems: string[] = [];
    if (j === lines.length) problems.push("the fence is never closed");
    // Directives: the comment lines right before the fence (blank lines between are allowed).
    const comments: string[] = [];
    for (let k = i - 1; k >= 0; k--) {
      const line = lines[k]!;
      if (line.trim() === "") continue;
      const directive = DIRECTIVE.exec(line);
      if (!directive) break;
      comments.unshift(directive[1]!);
    }
    if (!lang) problems.push("the block has no language (ts, sh, json, text …)");
    blocks.push({ id: `${file}:${i + 1}`, file, line: i + 1, lang: lang ?? "", code: body.join("\n"), directives: parseDirectives(comments, problems), problems });
    i = j;
  }
  return blocks;
}
