/**
 * DX-3: every fenced block of README.md and docs/*.md is checked, offline, against the built
 * package (`npm run build` first, as CI does): TypeScript blocks are type-checked as one tsc
 * program (imports of `steamharness*` resolve to this repository's `dist` through its package
 * `exports`) and then run (transpiled by esbuild, started by node); `sh` blocks run with the built `steamharness` bin on a copy of
 * `examples/`; `json` blocks are parsed. A block that is not checked says why in a
 * `<!-- docs-test: skip <reason> -->` comment (the convention: README, "Contributing", and
 * test/package/docs-blocks/markdown-blocks.ts). Every block runs in a fresh temp folder
 * (also its HOME), never in the repository, without provider keys.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import esbuild from "esbuild";
import { parseDocument } from "yaml";
import { startAnthropicMessagesServer } from "../fixtures/loopback-anthropic-messages.js";
import { startOpenAIResponsesServer } from "../fixtures/loopback-openai-responses.js";
import { TEST_POSTGRES_URL_VARIABLE } from "../fixtures/postgres.js";
import { runToCompletion } from "../fixtures/run-command.js";
import { extractBlocks, type DocBlock } from "./docs-blocks/markdown-blocks.js";
import { freePort, runProgram, startServing, type Interaction, type RunMode, type RunResult } from "./docs-blocks/run-block.js";

const repo = process.cwd();
// DOCS_BLOCKS_ONLY=docs/gateway.md checks only the pages whose path contains it (while editing a page).
const pages = ["README.md", ...readdirSync("docs").filter((name) => name.endsWith(".md")).sort().map((name) => `docs/${name}`)].filter((page) => page.includes(process.env.DOCS_BLOCKS_ONLY ?? ""));
const CONCURRENCY = Number(process.env.DOCS_BLOCKS_CONCURRENCY ?? 2);
const TS_LANGS = new Set(["ts", "typescript", "js", "javascript"]);
const SH_LANGS = new Set(["sh", "bash", "shell"]);

/** One checked unit: a block, or a block and the `continues` blocks after it. */
interface Program {
  id: string;
  page: string;
  blocks: DocBlock[];
  kind: "ts" | "sh" | "json" | "yaml" | "skip";
  problems: string[];
  code: string;
  /** For mapping diagnostics back: [first line in the program file (0-based), block]. */
  segments: Array<[number, DocBlock]>;
  slug: string;
}

function programsOf(page: string, blocks: DocBlock[]): Program[] {
  const programs: Program[] = [];
  for (const block of blocks) {
    const kind: Program["kind"] = block.directives.skip !== undefined ? "skip" : TS_LANGS.has(block.lang) ? "ts" : SH_LANGS.has(block.lang) ? "sh" : block.lang === "json" ? "json" : block.lang === "yaml" ? "yaml" : "skip";
    const problems = [...block.problems];
    // A `help` synopsis is checked against --help by docs-commands.test.ts.
    if (kind === "skip" && block.directives.skip === undefined && block.directives.help === undefined && block.lang) problems.push(`a \`${block.lang}\` block is neither run nor parsed: make it ts, sh, json or yaml, or mark it <!-- docs-test: skip <reason> -->`);
    if (block.directives.continues) {
      const previous = [...programs].reverse().find((program) => program.kind !== "skip");
      if (!previous || previous.kind !== kind || (kind !== "ts" && kind !== "sh")) {
        problems.push("`continues` needs a previous ts or sh block on the same page");
      } else {
        previous.segments.push([previous.code.split("\n").length, block]);
        previous.code += `\n${block.code}`;
        previous.blocks.push(block);
        previous.problems.push(...problems);
        continue;
      }
    }
    programs.push({ id: block.id, page, blocks: [block], kind, problems, code: block.code, segments: [[0, block]], slug: block.id.replace(/[^A-Za-z0-9]+/g, "-") });
  }
  return programs;
}

const allBlocks = pages.flatMap((page) => extractBlocks(page));
const programs = pages.flatMap((page) => programsOf(page, allBlocks.filter((block) => block.file === page)));
const directivesOf = (program: Program) => program.blocks[0]!.directives;
const postgresUrl = process.env[TEST_POSTGRES_URL_VARIABLE];

// ---- the shared temp folder: node_modules as an install would have it, and the bin shims ----
const root = mkdtempSync(path.join(tmpdir(), "steamharness-docs-blocks-"));
const bin = path.join(root, "bin");

function prepareRoot(): void {
  writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: "docs-blocks", private: true, type: "module" }));
  const modules = path.join(root, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(path.join(repo, "node_modules"))) {
    if (name === "steamharness" || name === ".bin") continue;
    symlinkSync(path.join(repo, "node_modules", name), path.join(modules, name));
  }
  symlinkSync(repo, path.join(modules, "steamharness")); // as `npm install steamharness` would: package.json exports → dist
  mkdirSync(bin);
  writeFileSync(path.join(bin, "steamharness"), `#!/bin/sh\nexec "${process.execPath}" "${path.join(repo, "dist/cli.js")}" "$@"\n`);
  writeFileSync(path.join(bin, "npx"), `#!/bin/sh\nif [ "$1" = steamharness ]; then shift; exec steamharness "$@"; fi\necho "docs-test: only 'npx steamharness' runs offline (got npx $*)" >&2\nexit 127\n`);
  // npm would reach the registry or change a project: a block that installs is marked skip.
  writeFileSync(path.join(bin, "npm"), `#!/bin/sh\necho "docs-test: npm is not run offline (mark the block skip, with why)" >&2\nexit 127\n`);
  for (const name of ["steamharness", "npx", "npm"]) chmodSync(path.join(bin, name), 0o755);
}

/** The block's own folder: a copy of examples/ (with src/ beside it for the examples' relative imports) and the page's `file` blocks. */
function prepareProgramDir(program: Program): string {
  const dir = path.join(root, "blocks", program.slug);
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(repo, "examples"), path.join(dir, "examples"), { recursive: true });
  symlinkSync(path.join(repo, "src"), path.join(dir, "src"));
  for (const block of allBlocks.filter((b) => b.file === program.page && b.directives.file)) {
    const target = path.join(dir, block.directives.file!);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, block.code);
  }
  return dir;
}

const fileName = (program: Program): string => (program.kind === "sh" ? "block.sh" : directivesOf(program).jest ? "block.test.ts" : "block.ts");


// ---- one type-check over every TypeScript block ----
// tsc runs in a child process: the program (every block plus the package's and its dependencies'
// declarations) would otherwise stay in the jest worker's heap. It runs while the `sh` blocks
// (which it does not check) run beside it; the TypeScript blocks run once it has answered.
async function typeCheck(files: Map<string, Program>): Promise<Map<string, string[]>> {
  const tsconfig = {
    compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2022"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true, esModuleInterop: true, isolatedModules: true },
    files: [...files.keys()],
  };
  writeFileSync(path.join(root, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = await runToCompletion(process.execPath, [path.join(repo, "node_modules/typescript/bin/tsc"), "-p", path.join(root, "tsconfig.json"), "--pretty", "false"], { cwd: root, timeoutMs: 300_000 });
  const errors = new Map<string, string[]>();
  const add = (id: string, message: string) => errors.set(id, [...(errors.get(id) ?? []), message]);
  if (tsc.status !== 0 && tsc.status !== 2) add("(global)", `tsc exited with ${tsc.status ?? tsc.signal}: ${tsc.stderr}${tsc.stdout}`);
  // "file(line,col): error TS1234: message", continuation lines indented.
  for (const entry of tsc.stdout.split(/\n(?=\S)/).filter((text) => text.trim())) {
    const match = /^(.*?)\((\d+),(\d+)\): error (TS\d+: [\s\S]*)$/.exec(entry.trim());
    const owner = match ? files.get(path.resolve(root, match[1]!)) : undefined;
    if (!match || !owner) {
      add("(global)", entry.trim());
      continue;
    }
    const line = Number(match[2]) - 1;
    const [start, block] = [...owner.segments].reverse().find(([first]) => first <= line)!;
    add(owner.id, `${block.file}:${block.line + 1 + line - start}: ${match[4]}`);
  }
  return errors;
}

// ---- running ----
function interactionOf(program: Program): Interaction {
  const directives = directivesOf(program);
  return directives.server ? { kind: "server" } : directives.mcpStdio ? { kind: "mcp-stdio" } : { kind: "exit" };
}

// The servers blocks talk to (a gateway per project folder, the development OAuth issuer per
// literal port) are started by the first block that asks (in its folder, with its environment)
// and shared by the later ones, then stopped once every block has run: each block's requests
// start conversations and get tokens of their own, so a block sees the server as it would alone
// (ARCH-12: one start per server, not one per block).
const shared = new Map<string, Promise<{ stop(): Promise<void> }>>();
function sharedServer<T extends { stop(): Promise<void> }>(key: string, start: () => Promise<T>): Promise<T> {
  if (!shared.has(key)) shared.set(key, start());
  return shared.get(key) as Promise<T>;
}
const stopShared = () => Promise.all([...shared.values()].map((started) => started.then((server) => server.stop(), () => undefined)));

async function runOne(program: Program, dir: string): Promise<RunResult> {
  const directives = directivesOf(program);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, ...directives.env };
  for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "STEAMHARNESS_GATEWAY_TOKEN", "DATABASE_URL", "NODE_OPTIONS"]) if (!(key in directives.env)) delete env[key];
  const cleanups: Array<() => Promise<void>> = [];
  let loopbackRequests: (() => number) | undefined;
  try {
    if (directives.postgres) env.DATABASE_URL = postgresUrl;
    if (directives.loopback) {
      const script = { apiKey: "docs-test-key", replies: [{ text: "README.md describes steamharness." }], loop: true };
      const server = directives.loopback === "anthropic" ? await startAnthropicMessagesServer(script) : await startOpenAIResponsesServer(script);
      cleanups.push(() => server.close());
      loopbackRequests = () => server.requests.length;
      const prefix = directives.loopback === "anthropic" ? "ANTHROPIC" : "OPENAI";
      env[`${prefix}_BASE_URL`] = server.baseUrl;
      env[`${prefix}_API_KEY`] = "docs-test-key";
    }
    if (directives.configServer) {
      const adminKey = path.join(dir, "admin-key");
      writeFileSync(adminKey, randomBytes(24).toString("base64url"), { mode: 0o600 });
      const server = await startServing(process.execPath, [path.join(repo, "dist/cli.js"), "server", "--port", String(freePortFor(program, directives.configServer.port)), "--sqlite", path.join(dir, "config-server.sqlite"), "--admin-key-file", adminKey], { cwd: dir, env });
      cleanups.push(() => server.stop());
    }
    if (directives.oauthIssuer) {
      // The development issuer of the offline OAuth recipe (examples/dev/oauth-issuer.ts), as the page starts it.
      const port = String(freePortFor(program, directives.oauthIssuer.port));
      await sharedServer(`oauth-issuer ${port}`, () => startServing(process.execPath, ["--import", "tsx", path.join(dir, "examples/dev/oauth-issuer.ts"), "--port", port], { cwd: dir, env, timeoutMs: 60_000 }));
    }
    if (directives.gateway) {
      const { url, token } = await sharedServer(`gateway ${directives.gateway}`, async () => {
        const token = randomBytes(24).toString("hex");
        return { ...(await startServing(process.execPath, [path.join(repo, "dist/cli.js"), "gateway", directives.gateway!, "--port", "0"], { cwd: dir, env: { ...env, STEAMHARNESS_GATEWAY_TOKEN: token } })), token };
      });
      env.STEAMHARNESS_GATEWAY_URL = url;
      env.STEAMHARNESS_GATEWAY_TOKEN = token;
    }
    const mode: RunMode = program.kind === "sh" ? { kind: "sh", file: fileName(program) } : directives.jest ? { kind: "jest", file: fileName(program) } : { kind: "node", file: "block.mjs" };
    const result = await runProgram(mode, interactionOf(program), { cwd: dir, env, repo, timeoutMs: 90_000 });
    // A block given a loopback provider must have used it (not failed quietly before asking).
    if (result.ok && loopbackRequests && loopbackRequests() === 0) return { ...result, ok: false, detail: "exited 0 without asking the loopback provider" };
    return result;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  }));
}

const needsPostgresSkip = (program: Program) => directivesOf(program).postgres && !postgresUrl && process.env.CI !== "true";
const runnable = programs.filter((program) => (program.kind === "ts" || program.kind === "sh") && program.problems.length === 0 && !needsPostgresSkip(program));
const typeErrors = new Map<string, string[]>();
const results = new Map<string, RunResult>();
const timings: Record<string, number> = {};
// The free port that replaced a block's literal one (`server port=`, `config-server port=`), by program.
const ports = new Map<string, number>();
const freePortFor = (program: Program, literal: number): number => ports.get(`${program.id} ${literal}`)!;

// A program that must fail the check: proves the type-check reports an unmarked broken block.
const SELF_TEST_CODE = 'import { createNoSuchThing } from "steamharness";\ncreateNoSuchThing();\n';
const SELF_TEST_BLOCK: DocBlock = { id: "(self-test):1", file: "(self-test)", line: 0, lang: "ts", code: SELF_TEST_CODE, directives: { postgres: false, env: {}, mcpStdio: false, jest: false, continues: false, ports: [] }, problems: [] };
const SELF_TEST: Program = { id: "(self-test)", page: "(self-test)", blocks: [SELF_TEST_BLOCK], kind: "ts", problems: [], code: SELF_TEST_CODE, segments: [[0, SELF_TEST_BLOCK]], slug: "self-test" };

beforeAll(async () => {
  if (!existsSync(path.join(repo, "dist/index.d.ts")) || !existsSync(path.join(repo, "dist/cli.js"))) throw new Error("DX-3 checks the built package: run `npm run build` first");
  const t0 = Date.now();
  prepareRoot();
  const dirs = new Map<string, string>();
  const files = new Map<string, Program>();
  for (const program of [...programs.filter((p) => p.kind === "ts" && p.problems.length === 0), SELF_TEST]) {
    const dir = program === SELF_TEST ? path.join(root, "blocks", "self-test") : prepareProgramDir(program);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, fileName(program));
    // `export {}` keeps every block a module of its own (top-level await, no shared globals).
    writeFileSync(file, `${program.code}\nexport {};\n`);
    // Run as the transpiled module (type-checked above): node starts it without tsx's loader,
    // several seconds less per block on a loaded machine. Projects the block loads still go through tsx.
    if (program !== SELF_TEST && !directivesOf(program).jest) {
      writeFileSync(path.join(dir, "block.mjs"), esbuild.transformSync(`${program.code}\nexport {};\n`, { loader: "ts", format: "esm", target: "node20", sourcefile: program.id }).code);
    }
    files.set(path.resolve(file), program);
    dirs.set(program.id, dir);
  }
  for (const program of programs.filter((p) => p.kind === "sh" && p.problems.length === 0)) {
    const dir = prepareProgramDir(program);
    const { server, configServer, oauthIssuer, ports: literal } = directivesOf(program);
    let code = program.code;
    for (const port of [server?.port, configServer?.port, oauthIssuer?.port, ...literal]) {
      if (port === undefined) continue;
      // Distinct from every port handed out: two servers of one block must not get the same one.
      // The issuer's is one per literal port, as the issuer is (sharedServer).
      const issuer = port === oauthIssuer?.port ? ports.get(`oauth-issuer ${port}`) : undefined;
      let free = issuer ?? (await freePort());
      while (issuer === undefined && [...ports.values()].includes(free)) free = await freePort();
      ports.set(`${program.id} ${port}`, free);
      if (port === oauthIssuer?.port) ports.set(`oauth-issuer ${port}`, free);
      code = code.replaceAll(String(port), String(free));
    }
    writeFileSync(path.join(dir, "block.sh"), `${code}\n`);
    dirs.set(program.id, dir);
  }
  const t1 = Date.now();
  const checked = typeCheck(files).then((errors) => {
    for (const [id, errors_] of errors) typeErrors.set(id, errors_);
    timings.typeCheckMs = Date.now() - t0;
  });
  // The type-check takes one of the CONCURRENCY slots: the `sh` blocks run in the others
  // meanwhile, then every slot takes the TypeScript blocks (those without type errors), which
  // wait for its answer.
  const queue: Array<Program | "type-check"> = ["type-check", ...runnable.filter((program) => program.kind === "sh"), ...runnable.filter((program) => program.kind === "ts")];
  await pool(queue, CONCURRENCY, async (item) => {
    if (item === "type-check") return checked;
    if (item.kind === "ts") await checked;
    if (typeErrors.has(item.id)) return;
    results.set(item.id, await runOne(item, dirs.get(item.id)!));
  });
  await checked;
  await stopShared();
  timings.runMs = Date.now() - t1;
  process.stderr.write(`DX-3 docs blocks: ${programs.length} programs from ${allBlocks.length} blocks; type-check ${timings.typeCheckMs} ms, type-check and runs ${timings.runMs} ms (concurrency ${CONCURRENCY}, the type-check in one slot)\n`);
  // Block by block only while checking some pages (DOCS_BLOCKS_ONLY) or when one failed: a passing
  // full run stays quiet (ARCH-12), and each block's own test names what went wrong.
  if (process.env.DOCS_BLOCKS_ONLY || [...results.values()].some((result) => !result.ok) || typeErrors.size > 1) {
    process.stderr.write(`${[...results].map(([id, result]) => `  ${id}: ${result.ok ? "ok" : "FAILED"} ${result.ms} ms — ${result.detail.split("\n")[0]}`).join("\n")}\n` +
      `  not run: ${programs.filter((p) => p.kind === "skip").map((p) => `${p.id} (${directivesOf(p).skip ?? "a --help synopsis"})`).join("; ")}\n`);
  }
}, 600_000);

afterAll(async () => {
  await stopShared();
  rmSync(root, { recursive: true, force: true });
});

describe("DX-3: every code block in README and docs compiles and runs", () => {
  it("DX-3: the pages have blocks, and the check catches a broken unmarked block", async () => {
    if (!process.env.DOCS_BLOCKS_ONLY) expect(programs.filter((p) => p.kind === "ts").length).toBeGreaterThan(10);
    expect(typeErrors.get(SELF_TEST.id)?.join("\n")).toMatch(/createNoSuchThing/);
    expect(typeErrors.get("(global)") ?? []).toEqual([]);
    const unmarked = programsOf("x.md", extractBlocks("x.md", "```text\nsome listing\n```\n\n<!-- docs-test: skip -->\n```ts\nx\n```\n"));
    expect(unmarked.map((p) => p.problems)).toEqual([[expect.stringMatching(/neither run nor parsed/)], [expect.stringMatching(/needs a reason/)]]);
    // A block that compiles but throws when run fails too.
    const failing = path.join(root, "blocks", "self-test", "throws.mjs");
    writeFileSync(failing, 'throw new Error("boom");\n');
    const run = await runProgram({ kind: "node", file: failing }, { kind: "exit" }, { cwd: root, env: process.env, repo, timeoutMs: 30_000 });
    expect(run.ok).toBe(false);
    expect(run.detail).toMatch(/boom/);
  });

  for (const program of programs) {
    const title = `DX-3: ${program.id} (${program.blocks[0]!.lang}${directivesOf(program).skip !== undefined ? ", not run" : ""})`;
    if (program.kind === "skip") {
      it(`${title}: not run — ${directivesOf(program).skip ?? (directivesOf(program).help !== undefined ? `a synopsis, checked against steamharness ${directivesOf(program).help} --help (DX-18)` : "(no reason)")}`, () => {
        expect(program.problems).toEqual([]);
      });
    } else if (program.kind === "json") {
      it(title, () => {
        expect(program.problems).toEqual([]);
        expect(() => JSON.parse(program.code)).not.toThrow();
      });
    } else if (program.kind === "yaml") {
      it(title, () => {
        expect(program.problems).toEqual([]);
        expect(parseDocument(program.code).errors.map((error) => error.message)).toEqual([]);
      });
    } else if (needsPostgresSkip(program)) {
      it.skip(`${title} — skipped: no PostgreSQL (set ${TEST_POSTGRES_URL_VARIABLE}, see scripts/postgres-test-cluster.sh)`, () => {});
    } else {
      it(title, () => {
        expect(program.problems).toEqual([]);
        expect(typeErrors.get(program.id) ?? []).toEqual([]);
        if (directivesOf(program).postgres && !postgresUrl) throw new Error(`PostgreSQL is required under CI: ${TEST_POSTGRES_URL_VARIABLE} is not set`);
        const result = results.get(program.id);
        expect(result?.ok ? "ok" : (result?.detail ?? "not run")).toBe("ok");
      });
    }
  }
});
