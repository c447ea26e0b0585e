/**
 * The layers of `src/` and the rule of each, as data (ARCH-2). One place reads the import graph
 * of a source tree: the architecture test checks it against these rules, and
 * `node --import tsx scripts/architecture-graph.ts --dot` draws it for docs/architecture.md.
 *
 * A file's layer comes from its folder alone, so the tree shows the hexagon:
 * `src/domain` (pure rules), `src/ports` (interfaces a host may replace), `src/app/<area>`
 * (application services), `src/adapters/driving/<surface>` (driving adapters: what calls us),
 * `src/adapters/driven/<technology>` (driven adapters: what we call), `src/adapters/driven/kernel`
 * (the store rules every storage family shares, over its row drivers), `src/adapters/driving/shared`
 * (the plumbing every surface shares: exit codes, the fatal line, Host checks, bodies, listening), `src/adapters/driven/system`
 * (machine helpers they share: clock, ids, file source, migrations finder), `src/compose`
 * (the composition root), `src/testing` (published contract suites) and the entry files `src/*.ts`.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { posix } from "node:path";

/**
 * Where each layer lives: the one table a folder rename changes (ARCH-9). Rules, pending lists,
 * the diagram and the tests name layers and units by role (`driving/cli`, `driven/sqlite`), never
 * by folder, so the rename of `src/adapters/in` and `out` to `driving` and `driven` was an edit of this table.
 * Order matters: the first folder that holds a path wins (the kernel and the system helpers sit
 * inside the driven folder, the shared plumbing inside the driving one).
 */
export const LAYER_FOLDERS = [
  { layer: "domain", folder: "src/domain" },
  { layer: "ports", folder: "src/ports" },
  { layer: "app", folder: "src/app", families: true },
  { layer: "shared", folder: "src/adapters/driving/shared", unit: "driving/shared" },
  { layer: "driving", folder: "src/adapters/driving", families: true },
  { layer: "kernel", folder: "src/adapters/driven/kernel", unit: "driven/kernel" },
  { layer: "system", folder: "src/adapters/driven/system", unit: "driven/system" },
  { layer: "driven", folder: "src/adapters/driven", families: true },
  { layer: "compose", folder: "src/compose" },
  { layer: "testing", folder: "src/testing" },
] as const satisfies ReadonlyArray<{ layer: string; folder: string; families?: boolean; unit?: string }>;

/** Where a file sits: its layer and, for app and adapters, the folder (area, surface, technology). */
export interface LayerOf {
  layer: (typeof LAYER_FOLDERS)[number]["layer"] | "entry" | "other";
  /** `app/agent`, `driving/cli`, `driven/sqlite`, …; the layer itself for the others. */
  unit: string;
}

/**
 * The layer of a path relative to the tree's root (`src/...`).
 *
 * @example
 * layerOf("src/adapters/driving/cli/commands.ts"); // { layer: "driving", unit: "driving/cli" }
 */
export function layerOf(path: string): LayerOf {
  for (const entry of LAYER_FOLDERS) {
    if (!path.startsWith(`${entry.folder}/`)) continue;
    if (!("families" in entry)) return { layer: entry.layer, unit: "unit" in entry ? entry.unit : entry.layer };
    const family = path.slice(entry.folder.length + 1).match(/^([^/]+)\//);
    return family ? { layer: entry.layer, unit: `${entry.layer}/${family[1]}` } : { layer: "other", unit: "other" };
  }
  if (/^src\/[^/]+\.ts$/.test(path)) return { layer: "entry", unit: "entry" };
  return { layer: "other", unit: "other" };
}

/** One import of a source file. */
export interface ImportEdge {
  from: string;
  /** The resolved source path for a relative import, the package name otherwise. */
  to: string;
  /** The specifier as written. */
  specifier: string;
  typeOnly: boolean;
  /** `import "x";` with no bindings: run for its effects. */
  sideEffect: boolean;
  /** `export … from "x"`: a re-export (what the entry files are made of). */
  reexport: boolean;
  relative: boolean;
}

/**
 * The package an import names (`node:fs`, `@scope/name`, `name`).
 *
 * @example
 * packageOf("@scope/name/sub"); // "@scope/name"
 */
export function packageOf(specifier: string): string {
  if (specifier.startsWith("node:")) return specifier;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

const importRe =
  /(?:^|\n)[ \t]*(import|export)[ \t]+(type[ \t]+)?(?:([^'";]*?)[ \t\n]+from[ \t]+)?["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/g;

/**
 * The `.ts` files under a folder of `root`, as paths relative to `root`.
 *
 * @example
 * sourceFiles(".", "src/ports"); // ["src/ports/approvals.ts", …]
 */
export function sourceFiles(root: string, folder = "src"): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(posix.join(root, dir)).flatMap((name) => {
      const path = posix.join(dir, name);
      return statSync(posix.join(root, path)).isDirectory() ? walk(path) : path.endsWith(".ts") ? [path] : [];
    });
  return walk(folder);
}

/**
 * A file's code without comments: what the rules read (a rule named in a JSDoc example is not a use).
 *
 * @example
 * codeOf(".", "src/domain/errors.ts").includes("/**"); // false
 */
export function codeOf(root: string, file: string): string {
  // A trailing `// …` is cut only after whitespace, so `https://` inside a string survives.
  return readFileSync(posix.join(root, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "").replace(/[ \t]\/\/[ \t].*$/gm, "");
}

/**
 * Code with the text of its template literals blanked (their `${…}` expressions kept, line breaks
 * kept): an `import` line inside a template is text the code writes (a generated project's own
 * file, cli/init/templates.ts), not an import of this file (ARCH-9). String literals are skipped
 * whole, so a backtick inside one opens nothing.
 *
 * @example
 * withoutTemplateText("const a = `import x from \"node:fs\";\n${b}`;"); // 'const a = `                        \n${b}`;'
 */
export function withoutTemplateText(code: string): string {
  let out = "";
  let depth = 0;
  let inText = false;
  // For each open `${`: the brace depth of the code around it, so its `}` is told from a block's.
  const open: number[] = [];
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (inText) {
      if (c === "$" && code[i + 1] === "{") {
        out += "${";
        i++;
        open.push(depth++);
        inText = false;
      } else if (c === "\\") {
        out += code[i + 1] === "\n" ? " \n" : "  ";
        i++;
      } else {
        if (c === "`") inText = false;
        out += c === "`" || c === "\n" ? c : " ";
      }
      continue;
    }
    if (c === "'" || c === '"') {
      let end = i + 1;
      while (end < code.length && code[end] !== c && code[end] !== "\n") end += code[end] === "\\" ? 2 : 1;
      out += code.slice(i, end + 1);
      i = end;
      continue;
    }
    if (c === "`") inText = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === open[open.length - 1]) {
      open.pop();
      inText = true;
    }
    out += c;
  }
  return out;
}

/**
 * Every import of one file (static, dynamic, re-exports, side-effect imports); an `import` inside
 * a template literal's text is not one ({@link withoutTemplateText}).
 *
 * @example
 * importsOf(".", "src/index.ts").filter((edge) => edge.relative).map((edge) => edge.to); // ["src/compose/…", …]
 */
export function importsOf(root: string, file: string): ImportEdge[] {
  const text = withoutTemplateText(codeOf(root, file));
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(importRe)) {
    const specifier = (match[4] ?? match[5])!;
    const relative = specifier.startsWith(".");
    const bindings = match[3];
    const typeOnly = match[2] !== undefined || (bindings !== undefined && /^\{[^}]*\}$/s.test(bindings.trim()) && bindings.replace(/[{}\s]/g, "").split(",").filter(Boolean).every((name) => name.startsWith("type ")));
    edges.push({
      from: file,
      to: relative ? posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, ".ts") : packageOf(specifier),
      specifier,
      typeOnly,
      sideEffect: match[1] === "import" && match[5] === undefined && bindings === undefined && match[2] === undefined,
      reexport: match[1] === "export",
      relative,
    });
  }
  return edges;
}

/**
 * The `import(…)` calls of a file whose argument is not one string literal (a variable, a call, a
 * template literal): the graph cannot see where they lead, so each must be allow-listed (ARCH-9).
 * Returns the argument's first characters, as written.
 *
 * @example
 * nonLiteralImportsOf("test/fixtures/architecture/trees/dynamic-import", "src/app/agent/a.ts"); // ["`./${name}.js`", "url"]
 */
export function nonLiteralImportsOf(root: string, file: string): string[] {
  return [...codeOf(root, file).matchAll(/(?<![\w$.])import\s*\(\s*(?!["'][^"'`]*["']\s*\))([^)\n]{0,40})/g)].map((match) => match[1]!.trim());
}

/** Which units a layer may import by value (type-only imports of ports and domain are always fine where listed). */
export const LAYER_RULES: Record<LayerOf["layer"], { mayImport: Array<LayerOf["layer"]>; ownUnitOnly?: boolean; note: string }> = {
  domain: { mayImport: ["domain"], note: "pure rules: other domain modules, port types (type-only), TypeBox" },
  ports: { mayImport: [], note: "interfaces only: type-only imports of ports and the domain" },
  app: { mayImport: ["domain", "ports", "app"], note: "application services: the domain, ports and other app areas; never an adapter, never the root" },
  driven: { mayImport: ["domain", "ports", "kernel", "system", "driven"], ownUnitOnly: true, note: "driven adapters: the domain, ports, their own technology, the kernel and the system helpers; never another technology" },
  kernel: { mayImport: ["domain", "ports", "kernel"], note: "the store rules every storage family shares, over its row drivers: pure (domain and ports only)" },
  system: { mayImport: ["domain", "ports", "system"], note: "machine helpers the driven adapters share: clock, ids, the file-import source, the migrations finder (Node built-ins, and esbuild for the --ui page)" },
  driving: { mayImport: ["app", "domain", "ports", "shared", "driving"], ownUnitOnly: true, note: "driving adapters: the app, the domain, ports and the shared plumbing, given what they open as options by the root (ARCH-6); never the root, never a driven adapter directly, never another surface (ARCH-9; the root hands a surface what another one brings, e.g. src/compose/cli.ts)" },
  shared: { mayImport: ["domain", "ports", "shared"], note: "the plumbing every surface shares (exit codes, the fatal line, Host checks, request bodies, rate limits, listening): the domain and ports only, never a surface" },
  compose: { mayImport: ["domain", "ports", "app", "driving", "shared", "driven", "kernel", "system", "compose"], note: "the composition root: everything below the entries" },
  testing: { mayImport: ["domain", "ports", "testing"], note: "published contract suites: the domain and ports only" },
  entry: { mayImport: ["compose", "domain", "ports", "app", "testing", "entry"], note: "curated export lists: the root, the app's public factories, domain values; adapters only re-exported (export … from) or as types, never imported to run code" },
  other: { mayImport: [], note: "not expected under src/" },
};

/**
 * The packages of the MCP SDK family: only the MCP adapter folder imports them (MCP-10). The v1
 * line (`@modelcontextprotocol/sdk`) is not among them: no layer may import it (MCP-16; the tests
 * keep it as an independent client). The v2 client reads the authorization server's metadata.
 */
export const MCP_SDK_PACKAGES = ["@modelcontextprotocol/server", "@modelcontextprotocol/core", "@modelcontextprotocol/client", "@modelcontextprotocol/ext-apps"];

/**
 * The packages that reach the machine (files, processes, sockets): only driven adapters and the
 * entries import them (ARCH-9). A layer that imports one breaks the `io` rule, whatever its
 * package list says, so these never appear in the lists of other layers.
 */
export const IO_PACKAGES = ["node:fs", "node:fs/promises", "node:child_process", "node:net"];
const IO_LAYERS: Array<LayerOf["layer"]> = ["driven", "system", "entry"];

/** Packages each layer (or unit) may import by value. Type-only package imports are checked the same way. */
export const PACKAGE_RULES: Record<string, string[]> = {
  domain: ["@sinclair/typebox"],
  ports: [],
  // @cfworker/json-schema: an entrypoint's JSON Schema 2020-12 input is compiled and checked where its arguments are (MCP-3).
  app: ["@sinclair/typebox", "@cfworker/json-schema", "node:async_hooks", "node:crypto", "node:path", "node:url", "tsx"],
  kernel: [],
  // esbuild: the browser example page `gateway --ui` bundles in memory (UI-6), loaded on that flag only.
  system: ["node:crypto", "node:fs", "node:fs/promises", "node:path", "node:url", "esbuild"],
  "driven/coding-tools": ["@sinclair/typebox", "node:crypto", "node:child_process", "node:fs", "node:fs/promises", "node:path", "node:worker_threads", "node:os"],
  "driven/host-bridge-client": [],
  // The configuration server's client (CFG-4): fetch for the API, the saved login in the auth dir.
  "driven/config-server-client": ["node:fs/promises", "node:path"],
  "driven/memory": ["node:crypto"],
  // The OpenTelemetry adapter uses the API only; the SDK is the host's (or the CLI's, loaded when configured).
  "driven/opentelemetry": ["@opentelemetry/api", "@opentelemetry/sdk-node", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/exporter-metrics-otlp-http", "@opentelemetry/sdk-metrics"],
  "driven/postgres": ["drizzle-orm", "pg", "node:crypto", "node:fs", "node:path"],
  "driven/providers": ["@mariozechner/pi-ai", "openai", "@anthropic-ai/sdk", "node:crypto"],
  // esbuild bundles the worker script once when running from the sources (tests, tsx); the built package ships it.
  "driven/sandbox": ["quickjs-emscripten", "esbuild", "node:crypto", "node:fs", "node:module", "node:worker_threads", "node:url", "node:path", "node:os"],
  // ARCH-7: the workflow worker processes and the project's files on disk (dotenv reads its `.env`, tsx loads a TypeScript project).
  "driven/worker-process": ["dotenv", "tsx", "node:child_process", "node:crypto", "node:fs", "node:fs/promises", "node:os", "node:path", "node:url"],
  "driven/sqlite": ["better-sqlite3", "drizzle-orm", "node:crypto", "node:fs", "node:fs/promises", "node:module", "node:path"],
  // yaml: the CLI reads eval suites written in YAML (EVAL-1).
  driving: ["@sinclair/typebox", "commander", "dotenv", "tsx", "yaml", "node:crypto", "node:http", "node:os", "node:path", "node:readline", "node:stream", "node:url"],
  // MCP-10: the MCP SDK (and the MCP Apps helpers built on it) is imported in one folder only, the
  // MCP adapter, so a move to SDK v2 / spec 2026-07-28 touches nothing else. There is no SDK
  // client in src (no driven adapter speaks MCP), so one driving folder is the whole boundary;
  // a future MCP client adapter would get its own driven folder and this list a second entry.
  // commander: the surface adds its own `--http` flags to the `mcp` command (ARCH-9).
  "driving/mcp": ["@sinclair/typebox", ...MCP_SDK_PACKAGES, "commander", "jose", "tsx", "node:crypto", "node:http", "node:os", "node:path", "node:url"],
  // HTTP types for the Host check and body reader; commander for the exit codes and option parsers; the default data dir.
  shared: ["commander", "node:http", "node:os", "node:path"],
  compose: [],
  testing: ["node:crypto", "node:os", "node:path"],
  entry: [],
};

/**
 * What no module holds (ARCH-6): a runtime kept in a module-level variable, or one reached through
 * a getter and changed (`defaultRuntime().telemetry = …`). Each entry builds its runtime and hands it down.
 */
export const RUNTIME_STATE: Array<[name: string, pattern: RegExp]> = [
  ["module-level runtime", /^(?:export\s+)?(?:let|var)\s+\w+[^\n;]*Runtime/gm],
  ["runtime changed through a getter", /\w*Runtime\(\)\.\w+\s*=(?!=)/g],
];

/** What the domain never touches (ARCH-9): the environment, the clock, randomness. Take a port. */
export const DOMAIN_IMPURE: Array<[name: string, pattern: RegExp]> = [
  ["process.env", /\bprocess\.env\b/g],
  ["Date.now", /\bDate\.now\s*\(/g],
  ["Math.random", /\bMath\.random\s*\(/g],
  ["new Date()", /\bnew\s+Date\s*\(\s*\)/g],
];

/**
 * Non-literal `import()` calls allowed, per file, with why (ARCH-9). Everything else a file loads
 * must be a literal the graph can check.
 */
export const NON_LITERAL_IMPORTS_ALLOWED: Record<string, { count: number; why: string }> = {
  "src/app/conversation/conversation-project.ts": { count: 1, why: "loads the host's own conversation project by file URL" },
  "src/adapters/driven/worker-process/project-loader.ts": { count: 1, why: "loads the host's workflow project by file URL" },
  "src/adapters/driven/sandbox/sandbox-entry.ts": { count: 2, why: "esbuild resolved from the package's own folder; the worker's bootstrap script text imports tsx by path" },
};

/** Files of the application that still reach the composition root by value (ARCH-1, not yet moved to options). Must only shrink. */
export const APP_ROOT_IMPORTS_PENDING: string[] = [];

/**
 * Folder-level cycles not yet broken (ARCH-2, ARCH-9), each the folders of one loop. Must only
 * shrink: the driving adapters open storage through the root, which wires them (ARCH-6 removes it).
 */
export const UNIT_CYCLES_PENDING: string[][] = [
  // The domain names port types and the ports name domain types (type-only, one vocabulary).
  ["domain", "ports"],
];

/**
 * Today's breaks of the ARCH-9 rules, named, with how many there are: the driving-family rule by
 * `from unit → to unit` (imports), the `io` rule by `unit → package` (files), the domain's purity by
 * `file: name` (uses). The test fails when an entry is missing, grows, shrinks without being
 * lowered here, or is gone without being deleted: the lists only shrink, and ARCH-6/ARCH-7 empty them.
 */
export const PENDING: Record<PendingRule, Record<string, number>> = {
  family: {},
  // Files that read or write files, spawn processes or open sockets outside the driven adapters.
  io: {
    // The published managed-file contract writes the real files importFile reads; a writer handed in would need code in the testing entry (entries are export lists) or testing → system.
    "testing → node:fs/promises": 1,
  },
  impure: {},
  root: {},
  barrel: {},
};
export type PendingRule = "family" | "io" | "impure" | "root" | "barrel";

/** A rule broken by one import or one use. */
export interface Violation {
  rule: "layer" | "family" | "package" | "side-effect" | "extension" | "type-only" | "io" | "impure" | "dynamic-import" | "root" | "barrel" | "singleton";
  from: string;
  /** The specifier, package or name as written. */
  to: string;
  /** The import, for the rules about imports. */
  edge?: ImportEdge;
}

/**
 * The rules each file of the tree breaks (ARCH-2, ARCH-9).
 *
 * @example
 * violations("test/fixtures/architecture/trees/domain-impure").map((v) => `${v.rule}: ${v.from} → ${v.to}`);
 * // ["impure: src/domain/a.ts → Date.now", …]
 */
export function violations(root: string, files: string[] = sourceFiles(root), allowed = NON_LITERAL_IMPORTS_ALLOWED): Violation[] {
  const found: Violation[] = [];
  const add = (rule: Violation["rule"], edge: ImportEdge): void => void found.push({ rule, from: edge.from, to: edge.specifier, edge });
  for (const file of files) {
    const from = layerOf(file);
    const dynamic = nonLiteralImportsOf(root, file);
    if (dynamic.length > (allowed[file]?.count ?? 0)) for (const expression of dynamic) found.push({ rule: "dynamic-import", from: file, to: expression });
    for (const [name, pattern] of RUNTIME_STATE) for (const _ of codeOf(root, file).matchAll(pattern)) found.push({ rule: "singleton", from: file, to: name });
    if (from.layer === "domain") {
      const code = codeOf(root, file);
      for (const [name, pattern] of DOMAIN_IMPURE) for (const _ of code.matchAll(pattern)) found.push({ rule: "impure", from: file, to: name });
    }
    for (const edge of importsOf(root, file)) {
      if (edge.sideEffect) add("side-effect", edge);
      if (!edge.relative) {
        if (from.layer === "entry" || from.layer === "other") continue;
        if (IO_PACKAGES.includes(edge.to) && !IO_LAYERS.includes(from.layer)) add("io", edge);
        else if (!(PACKAGE_RULES[from.unit] ?? PACKAGE_RULES[from.layer] ?? []).includes(edge.to)) add("package", edge);
        continue;
      }
      if (!/\.(js|json)$/.test(edge.specifier)) add("extension", edge);
      const to = layerOf(edge.to);
      // ARCH-6: the root re-exports no adapter (the entries name what is public), and no adapter imports the root.
      if (from.layer === "compose" && edge.reexport && ["driving", "driven", "kernel", "system"].includes(to.layer)) add("barrel", edge);
      if (from.layer === "driving" && to.layer === "compose") {
        add("root", edge);
        continue;
      }
      if (to.unit === from.unit) continue;
      if (from.layer === "ports" || from.layer === "domain") {
        if ((to.layer === "ports" || to.layer === "domain") && edge.typeOnly) continue;
        if (from.layer === "ports") {
          add("type-only", edge);
          continue;
        }
      }
      if (from.layer === "entry" && ["driving", "shared", "driven", "kernel", "system"].includes(to.layer) && (edge.typeOnly || edge.reexport)) continue;
      const rule = LAYER_RULES[from.layer];
      if (!rule.mayImport.includes(to.layer)) add("layer", edge);
      else if (rule.ownUnitOnly && to.layer === from.layer) add("family", edge);
    }
  }
  return found;
}

/**
 * The key a violation of a pending rule is counted under (see {@link PENDING}).
 *
 * @example
 * pendingKey({ rule: "io", from: "src/app/agent/a.ts", to: "node:fs" }); // "app/agent → node:fs"
 */
export function pendingKey(violation: Violation): string {
  if (violation.rule === "family") return `${layerOf(violation.from).unit} → ${layerOf(violation.edge!.to).unit}`;
  if (violation.rule === "io") return `${layerOf(violation.from).unit} → ${violation.to}`;
  if (violation.rule === "root") return `${layerOf(violation.from).unit} → compose`;
  if (violation.rule === "barrel") return violation.from;
  return `${violation.from}: ${violation.to}`;
}

/**
 * How many breaks of a pending rule there are, by key (`io` counts files, the others uses).
 *
 * @example
 */
export function pendingCounts(found: Violation[], rule: PendingRule): Record<string, number> {
  const counts: Record<string, number> = {};
  const seen = new Set<string>();
  for (const violation of found.filter((candidate) => candidate.rule === rule)) {
    const key = pendingKey(violation);
    if (rule === "io" && seen.has(`${key} ${violation.from}`)) continue;
    seen.add(`${key} ${violation.from}`);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/**
 * What differs between a pending list and the tree: empty when the list is the truth.
 *
 * @example
 * pendingDrift({ "driving/cli → driving/mcp": 3 }, { "driving/cli → driving/mcp": 2 });
 * // ["grew: driving/cli → driving/mcp 2 → 3"]
 */
export function pendingDrift(actual: Record<string, number>, pending: Record<string, number>): string[] {
  const drift: string[] = [];
  for (const [key, count] of Object.entries(actual)) {
    const listed = pending[key];
    if (listed === undefined) drift.push(`new: ${key} (${count})`);
    else if (count > listed) drift.push(`grew: ${key} ${listed} → ${count}`);
    else if (count < listed) drift.push(`shrank: ${key} ${listed} → ${count} (lower the entry)`);
  }
  for (const key of Object.keys(pending)) if (!(key in actual)) drift.push(`gone: ${key} (delete the entry)`);
  return drift;
}

/**
 * The import graph between units (folders), with edge counts.
 *
 * @example
 * unitGraph(".").get("app/agent")?.get("domain"); // how many imports of the domain app/agent makes
 */
export function unitGraph(root: string, files: string[] = sourceFiles(root)): Map<string, Map<string, number>> {
  const graph = new Map<string, Map<string, number>>();
  for (const file of files) {
    const from = layerOf(file).unit;
    const targets = graph.get(from) ?? graph.set(from, new Map()).get(from)!;
    for (const edge of importsOf(root, file)) {
      if (!edge.relative) continue;
      const to = layerOf(edge.to).unit;
      if (to !== from && to !== "other") targets.set(to, (targets.get(to) ?? 0) + 1);
    }
  }
  return graph;
}

/**
 * Strongly connected components with more than one member (cycles), Tarjan's algorithm.
 *
 * @example
 * cyclesOf(new Map([["a", ["b"]], ["b", ["a"]], ["c", ["a"]]])); // [["a", "b"]]
 */
export function cyclesOf(graph: Map<string, Iterable<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * The folder-level cycles of a tree, every folder included (the root and the driving adapters, the
 * domain and the ports, the entries), type-only imports included (ARCH-9).
 *
 * @example
 * unitCycles("test/fixtures/architecture/trees/compose-cycle"); // [["compose", "driving/cli"]]
 */
export function unitCycles(root: string, files?: string[]): string[][] {
  return cyclesOf(new Map([...unitGraph(root, files)].map(([unit, targets]) => [unit, [...targets.keys()]])));
}

/** The boxes of the pictures: a title per group of units. */
const GROUPS: Array<[group: string, title: string, member: (unit: string) => boolean]> = [
  ["driving", "driving adapters", (unit) => unit.startsWith("driving/")],
  ["app", "application", (unit) => unit.startsWith("app/")],
  ["domain", "domain + ports", (unit) => unit === "domain" || unit === "ports"],
  ["driven", "driven adapters", (unit) => unit.startsWith("driven/")],
];
const folderOf = (layer: string): string => LAYER_FOLDERS.find((entry) => entry.layer === layer)!.folder;

/** The units of a graph and its arrows, sorted: what both pictures draw. */
function unitsAndArrows(graph: Map<string, Map<string, number>>): { units: string[]; arrows: Array<[from: string, to: string, count: number]> } {
  const units = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((targets) => [...targets.keys()])])].sort();
  const arrows = [...graph]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([from, targets]) => [...targets].sort(([a], [b]) => a.localeCompare(b)).map(([to, count]): [string, string, number] => [from, to, count]));
  return { units, arrows };
}

/**
 * The unit graph as Graphviz DOT: one cluster per layer, edges weighted by import count.
 *
 * @example
 * writeFileSync("docs/architecture.dot", toDot("."));
 */
export function toDot(root: string): string {
  const { units, arrows } = unitsAndArrows(unitGraph(root));
  const lines = ["digraph steamharness {", "  rankdir=TB; node [shape=box, fontname=Helvetica, fontsize=10]; edge [color=gray40, arrowsize=0.6];"];
  for (const [group, title, member] of GROUPS) {
    lines.push(`  subgraph "cluster_${group}" { label="${title}${group === "domain" ? "" : ` (${folderOf(group)})`}"; style=rounded; color=gray60;`);
    for (const unit of units.filter(member)) lines.push(`    "${unit}";`);
    lines.push("  }");
  }
  for (const unit of units.filter((candidate) => !GROUPS.some(([, , member]) => member(candidate)))) lines.push(`  "${unit}" [shape=ellipse];`);
  for (const [from, to, count] of arrows) lines.push(`  "${from}" -> "${to}" [penwidth=${Math.min(3, 0.5 + Math.log10(count)).toFixed(2)}];`);
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

/**
 * The arrows of a DOT text, without their weights: what the committed diagram is checked on, so a
 * new import along an existing arrow does not churn docs/architecture.dot (ARCH-9).
 *
 * @example
 * dotArrows('"a" -> "b" [penwidth=1.00];'); // ["a -> b"]
 */
export function dotArrows(dot: string): string[] {
  return [...dot.matchAll(/^\s*"([^"]+)" -> "([^"]+)"/gm)].map((match) => `${match[1]} -> ${match[2]}`).sort();
}

/**
 * The unit graph as a Mermaid flowchart (no weights, so it changes only when an arrow or a folder
 * does): the picture docs/architecture.md shows between {@link MERMAID_BEGIN} and {@link MERMAID_END}.
 *
 * @example
 * toMermaid(".").startsWith("```mermaid\nflowchart TB"); // true
 */
export function toMermaid(root: string): string {
  const { units, arrows } = unitsAndArrows(unitGraph(root));
  const id = (unit: string): string => unit.replace(/[^A-Za-z0-9]/g, "_");
  const lines = ["```mermaid", "flowchart TB"];
  for (const [group, title, member] of GROUPS) {
    lines.push(`  subgraph layer_${group}["${title}"]`);
    for (const unit of units.filter(member)) lines.push(`    ${id(unit)}["${unit}"]`);
    lines.push("  end");
  }
  for (const unit of units.filter((candidate) => !GROUPS.some(([, , member]) => member(candidate)))) lines.push(`  ${id(unit)}(["${unit}"])`);
  for (const [from, to] of arrows) lines.push(`  ${id(from)} --> ${id(to)}`);
  lines.push("```");
  return lines.join("\n");
}

/** The markers around the generated picture in docs/architecture.md. */
export const MERMAID_BEGIN = "<!-- architecture-graph: generated by `node --import tsx scripts/architecture-graph.ts --dot`; do not edit -->";
export const MERMAID_END = "<!-- architecture-graph: end -->";

/**
 * What the markers hold: the Mermaid block, told apart from the page's runnable blocks for the
 * docs-blocks test (DX-3), which checks code, not pictures.
 *
 * @example
 * generatedPicture(".").split("\n")[1]; // "```mermaid"
 */
export function generatedPicture(root: string): string {
  return `<!-- docs-test: skip a picture, checked against the code by test/architecture.test.ts -->\n${toMermaid(root)}`;
}

/**
 * A markdown text with the block between the markers replaced by `block`; throws when the markers are missing.
 *
 * @example
 * withGeneratedBlock(`${MERMAID_BEGIN}\nold\n${MERMAID_END}`, "new"); // `${MERMAID_BEGIN}\nnew\n${MERMAID_END}`
 */
export function withGeneratedBlock(markdown: string, block: string): string {
  const begin = markdown.indexOf(MERMAID_BEGIN);
  const end = markdown.indexOf(MERMAID_END);
  if (begin < 0 || end < begin) throw new Error("[steamharness] [architecture] the markers of the generated picture are missing");
  return `${markdown.slice(0, begin + MERMAID_BEGIN.length)}\n${block}\n${markdown.slice(end)}`;
}

/**
 * How the committed pictures differ from the tree (ARCH-9): the arrows of the DOT file (weights
 * ignored) and the Mermaid block of the architecture page (exactly). Empty when both are current.
 *
 * @example
 * diagramDrift(".", readFileSync("docs/architecture.dot", "utf8"), readFileSync("docs/architecture.md", "utf8")); // []
 */
export function diagramDrift(root: string, dot: string, markdown: string): string[] {
  const committed = new Set(dotArrows(dot));
  const drawn = new Set(dotArrows(toDot(root)));
  const drift = [...drawn].filter((arrow) => !committed.has(arrow)).map((arrow) => `dot: missing ${arrow}`);
  drift.push(...[...committed].filter((arrow) => !drawn.has(arrow)).map((arrow) => `dot: extra ${arrow}`));
  const begin = markdown.indexOf(MERMAID_BEGIN);
  const end = markdown.indexOf(MERMAID_END);
  if (begin < 0 || end < begin) drift.push("markdown: no generated picture between the markers");
  else if (markdown.slice(begin + MERMAID_BEGIN.length, end).trim() !== generatedPicture(root)) drift.push("markdown: the generated picture is stale");
  return drift;
}

if (process.argv[1]?.endsWith("architecture-graph.ts")) {
  if (process.argv.includes("--dot")) {
    writeFileSync("docs/architecture.dot", toDot("."));
    writeFileSync("docs/architecture.md", withGeneratedBlock(readFileSync("docs/architecture.md", "utf8"), generatedPicture(".")));
  } else process.stdout.write(violations(".").map((violation) => `${violation.rule}: ${violation.from} → ${violation.to}\n`).join(""));
}
