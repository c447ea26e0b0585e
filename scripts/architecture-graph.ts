/**
 * The layers of `src/` and the rule of each, as data (ARCH-2). One place reads the import graph
 * of a source tree: the architecture test checks it against these rules, and
 * `node --import tsx scripts/architecture-graph.ts --dot` draws it for docs/architecture.md.
 *
 * A file's layer comes from its folder alone, so the tree shows the hexagon:
 * `src/domain` (pure rules), `src/ports` (interfaces a host may replace), `src/app/<area>`
 * (application services), `src/adapters/in/<surface>` (driving adapters: what calls us),
 * `src/adapters/out/<technology>` (driven adapters: what we call), `src/adapters/out/kernel`
 * (the store rules every storage family shares, over its row drivers), `src/adapters/out/system`
 * (machine helpers they share: clock, ids, file source, migrations finder), `src/compose`
 * (the composition root), `src/testing` (published contract suites) and the entry files `src/*.ts`.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { posix } from "node:path";

/** Where a file sits: its layer and, for app and adapters, the folder (area, surface, technology). */
export interface LayerOf {
  layer: "domain" | "ports" | "app" | "in" | "out" | "kernel" | "system" | "compose" | "testing" | "entry" | "other";
  /** `app/agent`, `in/cli`, `out/sqlite`, …; the layer itself for the others. */
  unit: string;
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

/** The layer of a path relative to the tree's root (`src/...`). */
export function layerOf(path: string): LayerOf {
  let match: RegExpMatchArray | null;
  if (path.startsWith("src/domain/")) return { layer: "domain", unit: "domain" };
  if (path.startsWith("src/ports/")) return { layer: "ports", unit: "ports" };
  if ((match = path.match(/^src\/app\/([^/]+)\//))) return { layer: "app", unit: `app/${match[1]}` };
  if (path.startsWith("src/adapters/out/kernel/")) return { layer: "kernel", unit: "out/kernel" };
  if (path.startsWith("src/adapters/out/system/")) return { layer: "system", unit: "out/system" };
  if ((match = path.match(/^src\/adapters\/(in|out)\/([^/]+)\//))) return { layer: match[1] as "in" | "out", unit: `${match[1]}/${match[2]}` };
  if (path.startsWith("src/compose/")) return { layer: "compose", unit: "compose" };
  if (path.startsWith("src/testing/")) return { layer: "testing", unit: "testing" };
  if (/^src\/[^/]+\.ts$/.test(path)) return { layer: "entry", unit: "entry" };
  return { layer: "other", unit: "other" };
}

/** The package an import names (`node:fs`, `@scope/name`, `name`). */
export function packageOf(specifier: string): string {
  if (specifier.startsWith("node:")) return specifier;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

const importRe =
  /(?:^|\n)[ \t]*(import|export)[ \t]+(type[ \t]+)?(?:([^'";]*?)[ \t\n]+from[ \t]+)?["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/g;

/** The `.ts` files under a folder of `root`, as paths relative to `root`. */
export function sourceFiles(root: string, folder = "src"): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(posix.join(root, dir)).flatMap((name) => {
      const path = posix.join(dir, name);
      return statSync(posix.join(root, path)).isDirectory() ? walk(path) : path.endsWith(".ts") ? [path] : [];
    });
  return walk(folder);
}

/** Every import of one file (static, dynamic, re-exports, side-effect imports). */
export function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(posix.join(root, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
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

/** Which units a layer may import by value (type-only imports of ports and domain are always fine where listed). */
export const LAYER_RULES: Record<LayerOf["layer"], { mayImport: Array<LayerOf["layer"]>; ownUnitOnly?: boolean; note: string }> = {
  domain: { mayImport: ["domain"], note: "pure rules: other domain modules, port types (type-only), TypeBox" },
  ports: { mayImport: [], note: "interfaces only: type-only imports of ports and the domain" },
  app: { mayImport: ["domain", "ports", "app"], note: "application services: the domain, ports and other app areas; never an adapter, never the root" },
  out: { mayImport: ["domain", "ports", "kernel", "system", "out"], ownUnitOnly: true, note: "driven adapters: the domain, ports, their own technology, the kernel and the system helpers; never another technology" },
  kernel: { mayImport: ["domain", "ports", "kernel"], note: "the store rules every storage family shares, over its row drivers: pure (domain and ports only)" },
  system: { mayImport: ["domain", "ports", "system"], note: "machine helpers the driven adapters share: clock, ids, the file-import source, the migrations finder (Node built-ins only)" },
  in: { mayImport: ["app", "domain", "ports", "compose", "in"], note: "driving adapters: the app, the domain, ports, the root, and other surfaces (the CLI hosts their commands); never a driven adapter directly" },
  compose: { mayImport: ["domain", "ports", "app", "in", "out", "kernel", "system", "compose"], note: "the composition root: everything below the entries" },
  testing: { mayImport: ["domain", "ports", "testing"], note: "published contract suites: the domain and ports only" },
  entry: { mayImport: ["compose", "domain", "ports", "app", "testing", "entry"], note: "curated export lists: the root, the app's public factories, domain values; adapters only re-exported (export … from) or as types, never imported to run code" },
  other: { mayImport: [], note: "not expected under src/" },
};

/** The packages of the MCP SDK family: only the MCP adapter folder (`src/adapters/in/mcp`) imports them (MCP-10). */
export const MCP_SDK_PACKAGES = ["@modelcontextprotocol/sdk", "@modelcontextprotocol/ext-apps"];

/** Packages each layer (or unit) may import by value. Type-only package imports are checked the same way. */
export const PACKAGE_RULES: Record<string, string[]> = {
  domain: ["@sinclair/typebox"],
  ports: [],
  app: ["@sinclair/typebox", "node:async_hooks", "node:crypto", "node:fs", "node:fs/promises", "node:path", "node:url", "tsx"],
  kernel: [],
  system: ["node:crypto", "node:fs", "node:fs/promises", "node:path", "node:url"],
  "out/coding-tools": ["@sinclair/typebox", "node:crypto", "node:child_process", "node:fs", "node:fs/promises", "node:path", "node:worker_threads", "node:os"],
  "out/host-bridge-client": [],
  "out/memory": ["node:crypto"],
  // The OpenTelemetry adapter uses the API only; the SDK is the host's (or the CLI's, loaded when configured).
  "out/opentelemetry": ["@opentelemetry/api", "@opentelemetry/sdk-node", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/exporter-metrics-otlp-http", "@opentelemetry/sdk-metrics"],
  "out/postgres": ["drizzle-orm", "pg", "node:crypto", "node:fs", "node:path"],
  "out/providers": ["@mariozechner/pi-ai", "openai", "@anthropic-ai/sdk", "node:crypto"],
  // esbuild bundles the worker script once when running from the sources (tests, tsx); the built package ships it.
  "out/sandbox": ["quickjs-emscripten", "esbuild", "node:crypto", "node:fs", "node:module", "node:worker_threads", "node:url", "node:path", "node:os"],
  "out/sqlite": ["better-sqlite3", "drizzle-orm", "node:crypto", "node:fs", "node:fs/promises", "node:module", "node:path"],
  in: ["@sinclair/typebox", "commander", "dotenv", "tsx", "steamharness", "node:child_process", "node:crypto", "node:fs", "node:fs/promises", "node:http", "node:module", "node:net", "node:os", "node:path", "node:readline", "node:stream", "node:test", "node:url", "node:util"],
  // MCP-10: the MCP SDK (and the MCP Apps helpers built on it) is imported in one folder only, the
  // MCP adapter, so a move to SDK v2 / spec 2026-07-28 touches nothing else. There is no SDK
  // client in src (no driven adapter speaks MCP), so one driving folder is the whole boundary;
  // a future MCP client adapter would get its own out/ folder and this list a second entry.
  "in/mcp": ["@sinclair/typebox", ...MCP_SDK_PACKAGES, "jose", "tsx", "node:crypto", "node:fs", "node:fs/promises", "node:http", "node:net", "node:os", "node:path", "node:url"],
  compose: [],
  testing: ["node:crypto", "node:fs/promises", "node:os", "node:path"],
  entry: [],
};

/** Files of the application that still reach the composition root by value (ARCH-1, not yet moved to options). Must only shrink. */
export const APP_ROOT_IMPORTS_PENDING: string[] = [];

/** Folder-level cycles not yet broken (ARCH-2). Must only shrink. */
export const UNIT_CYCLES_PENDING: string[][] = [];

/** A rule broken by one import. */
export interface Violation {
  rule: "layer" | "family" | "package" | "side-effect" | "extension" | "type-only";
  edge: ImportEdge;
}

/** The rules each import of the tree breaks (ARCH-2). */
export function violations(root: string, files: string[] = sourceFiles(root)): Violation[] {
  const found: Violation[] = [];
  for (const file of files) {
    const from = layerOf(file);
    for (const edge of importsOf(root, file)) {
      if (edge.sideEffect) found.push({ rule: "side-effect", edge });
      if (!edge.relative) {
        const allowed = PACKAGE_RULES[from.unit] ?? PACKAGE_RULES[from.layer] ?? [];
        if (from.layer === "entry" || from.layer === "other") continue;
        if (!allowed.includes(edge.to)) found.push({ rule: "package", edge });
        continue;
      }
      if (!/\.(js|json)$/.test(edge.specifier)) found.push({ rule: "extension", edge });
      const to = layerOf(edge.to);
      if (to.unit === from.unit) continue;
      if (from.layer === "ports" || from.layer === "domain") {
        if ((to.layer === "ports" || to.layer === "domain") && edge.typeOnly) continue;
        if (from.layer === "ports") {
          found.push({ rule: "type-only", edge });
          continue;
        }
      }
      if (from.layer === "entry" && (to.layer === "in" || to.layer === "out" || to.layer === "kernel" || to.layer === "system") && (edge.typeOnly || edge.reexport)) continue;
      const rule = LAYER_RULES[from.layer];
      if (!rule.mayImport.includes(to.layer)) found.push({ rule: "layer", edge });
      else if (rule.ownUnitOnly && to.layer === from.layer) found.push({ rule: "family", edge });
    }
  }
  return found;
}

/** The import graph between units (folders), with edge counts. */
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

/** Strongly connected components with more than one member (cycles), Tarjan's algorithm. */
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
 * The folder-level cycles of a tree between the folders of the app and the adapters (`app/agent`,
 * `in/cli`, `out/sqlite`, …). Two edges that close a loop by design are not folders of one
 * layer and are left out: the domain and the ports name each other's types (type-only, one
 * vocabulary), and the driving adapters open storage through the root, which wires them.
 */
export function unitCycles(root: string, files?: string[]): string[][] {
  const graph = unitGraph(root, files);
  const folder = (unit: string): boolean => /^(app|in|out)\//.test(unit);
  return cyclesOf(new Map([...graph].filter(([unit]) => folder(unit)).map(([unit, targets]) => [unit, [...targets.keys()].filter(folder)])));
}

/** The unit graph as Graphviz DOT: one cluster per layer, edges weighted by import count. */
export function toDot(root: string): string {
  const graph = unitGraph(root);
  const clusters: Record<string, string> = { in: "driving adapters (src/adapters/in)", app: "application (src/app)", domain: "domain + ports", out: "driven adapters (src/adapters/out)" };
  const clusterOf = (unit: string): string => (unit.startsWith("in/") ? "in" : unit.startsWith("app/") ? "app" : unit === "domain" || unit === "ports" ? "domain" : unit.startsWith("out/") ? "out" : "");
  const units = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((targets) => [...targets.keys()])])].sort();
  const lines = ["digraph steamharness {", "  rankdir=TB; node [shape=box, fontname=Helvetica, fontsize=10]; edge [color=gray40, arrowsize=0.6];"];
  for (const [cluster, label] of Object.entries(clusters)) {
    lines.push(`  subgraph "cluster_${cluster}" { label="${label}"; style=rounded; color=gray60;`);
    for (const unit of units.filter((candidate) => clusterOf(candidate) === cluster)) lines.push(`    "${unit}";`);
    lines.push("  }");
  }
  for (const unit of units.filter((candidate) => clusterOf(candidate) === "")) lines.push(`  "${unit}" [shape=ellipse];`);
  for (const [from, targets] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    for (const [to, count] of [...targets].sort(([a], [b]) => a.localeCompare(b))) lines.push(`  "${from}" -> "${to}" [penwidth=${Math.min(3, 0.5 + Math.log10(count)).toFixed(2)}];`);
  }
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

if (process.argv[1]?.endsWith("architecture-graph.ts")) {
  if (process.argv.includes("--dot")) writeFileSync("docs/architecture.dot", toDot("."));
  else process.stdout.write(violations(".").map((violation) => `${violation.rule}: ${violation.edge.from} → ${violation.edge.specifier}\n`).join(""));
}
