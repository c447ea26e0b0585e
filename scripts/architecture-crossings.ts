/**
 * Folder crossings on a route (issue 23's measure), counted the same way on any tree:
 *
 * - The route of an entry function is every call the TypeScript checker resolves, starting at
 *   the entry and following each callee that has a body in `src/` (a function, an arrow or a
 *   method; a factory is walked with the closures it returns, so calling it reaches them). A call
 *   through an interface member (a port, the agent as the host sees it, a returned object typed
 *   by an interface) resolves to its declaration and ends there: where it goes is decided at run
 *   time.
 * - A folder is the tree's own area folder: `src/<x>` (`src/app/<x>`, `src/adapters/<x>`,
 *   `src/adapters/driving|out/<x>`), `domain`, `ports`, `compose`, `testing`, `entry` (`src/*.ts`).
 * - A crossing is a call site on the route whose callee is declared in another folder than the
 *   caller; each site counts once. `crossings` leaves out two kinds, counted apart: calls into
 *   the pure domain (`intoDomain`: leaves that never lead anywhere else) and calls through the
 *   members of the `src/ports` interfaces (`throughPorts`: the boundary the hexagon means to have).
 *   `backAndForth` counts the crossings between two folders that call each other on the route
 *   (one cycle of the folder graph of crossings).
 *
 * Used by scripts/architecture-measures.ts; run alone (`CROSSINGS_SITES=1` lists the counted sites):
 * `node --import tsx scripts/architecture-crossings.ts [<tree root>]`.
 */
import { relative, resolve, sep } from "node:path";
import { readdirSync, statSync } from "node:fs";
import ts from "typescript";

/** One route to count: the file (relative to the tree root, one of the candidates) and the function's name. */
export interface RouteEntry {
  name: string;
  files: string[];
  fn: string;
}

/** What one route crosses. */
export interface RouteCount {
  entry: string;
  crossings: number;
  backAndForth: number;
  intoDomain: number;
  throughPorts: number;
  /** Crossings by `from -> to` folder. */
  byFolders: Record<string, number>;
}

/** The two routes of the measure: one agent turn, one session-host run (the session node's host path). */
export const ROUTES: RouteEntry[] = [
  { name: "agentTurn", files: ["src/app/agent/agent-turn.ts", "src/agent/agent-turn.ts"], fn: "runAgentTurn" },
  { name: "sessionHostRun", files: ["src/app/agent-node/session-node.ts", "src/agent/session-node.ts"], fn: "viaHost" },
];

/** The area folder of a file under `src/`. */
export function folderOf(path: string): string {
  const parts = path.split("/");
  if (parts.length === 2) return "entry";
  const top = parts[1]!;
  if (top === "app") return parts[2]!;
  if (top === "adapters") {
    if (["in", "out", "driving", "driven"].includes(parts[2]!)) return parts[3]!;
    return parts.length === 3 ? "adapters" : parts[2]!;
  }
  return top;
}

const tsFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });

type Unit = ts.Node & { body?: ts.Node };

const isFunctionLike = (node: ts.Node): node is ts.FunctionLikeDeclaration => ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node);

/** The node whose body a declaration runs, or the declaration itself when it has none (a leaf). */
function unitOf(declaration: ts.Declaration): Unit {
  if (isFunctionLike(declaration)) return declaration;
  if ((ts.isVariableDeclaration(declaration) || ts.isPropertyAssignment(declaration) || ts.isPropertyDeclaration(declaration)) && declaration.initializer) {
    let init: ts.Expression = declaration.initializer;
    while (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
    if (isFunctionLike(init)) return init;
  }
  if (ts.isClassDeclaration(declaration)) return declaration.members.find(ts.isConstructorDeclaration) ?? declaration;
  return declaration;
}

function findFunction(source: ts.SourceFile, name: string): Unit | null {
  let found: Unit | null = null;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name?.getText(source) === name) found = node;
    else if (ts.isVariableDeclaration(node) && node.name.getText(source) === name) found = unitOf(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Strongly connected components of a small directed graph (folders), by Tarjan. */
function componentOf(edges: Map<string, Set<string>>): Map<string, number> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const component = new Map<string, number>();
  const stack: string[] = [];
  let counter = 0;
  let components = 0;
  const strong = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        strong(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (!component.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      for (let top = stack.pop(); top !== undefined; top = top === node ? undefined : stack.pop()) component.set(top, components);
      components++;
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) strong(node);
  return component;
}

/**
 * Counts the crossings of each route in the tree at `root` (a checkout with `src/`).
 *
 * @example
 * countCrossings(".", ROUTES) // [{ entry: "agentTurn", crossings: 12, … }, …]
 */
export function countCrossings(root: string, routes: RouteEntry[] = ROUTES): Array<RouteCount & { name: string }> {
  const absRoot = resolve(root);
  const files = tsFiles(`${absRoot}/src`);
  const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true, types: [], allowJs: false, strict: true });
  const checker = program.getTypeChecker();
  const rel = (file: ts.SourceFile): string => relative(absRoot, file.fileName).split(sep).join("/");
  const inSrc = (file: ts.SourceFile): boolean => rel(file).startsWith("src/") && !file.isDeclarationFile;

  return routes.map((route) => {
    const file = route.files.map((path) => program.getSourceFile(`${absRoot}/${path}`)).find((source) => source !== undefined);
    if (!file) throw new Error(`no ${route.files.join(" or ")} under ${absRoot}`);
    const entry = findFunction(file, route.fn);
    if (!entry) throw new Error(`no function ${route.fn} in ${rel(file)}`);
    const seenUnits = new Set<ts.Node>();
    const sites = new Map<string, { from: string; to: string }>();
    const queue: Unit[] = [entry];
    while (queue.length > 0) {
      const unit = queue.pop()!;
      if (seenUnits.has(unit)) continue;
      seenUnits.add(unit);
      const source = unit.getSourceFile();
      const from = folderOf(rel(source));
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
          const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
          let symbol = checker.getSymbolAtLocation(callee);
          if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
          for (const declaration of symbol?.declarations ?? []) {
            const target = declaration.getSourceFile();
            if (!inSrc(target)) continue;
            const next = unitOf(declaration);
            const to = folderOf(rel(target));
            if (to !== from) sites.set(`${rel(source)}:${node.getStart(source)}->${rel(target)}:${declaration.getStart(target)}`, { from, to });
            if (next.body || ts.isArrowFunction(next)) queue.push(next);
          }
        }
        ts.forEachChild(node, visit);
      };
      if (unit.body) visit(unit.body);
    }
    const crossings = [...sites.values()];
    const outer = crossings.filter((site) => site.to !== "domain" && site.to !== "ports");
    const graph = new Map<string, Set<string>>();
    for (const site of outer) {
      if (!graph.has(site.from)) graph.set(site.from, new Set());
      if (!graph.has(site.to)) graph.set(site.to, new Set());
      graph.get(site.from)!.add(site.to);
    }
    const component = componentOf(graph);
    const byFolders: Record<string, number> = {};
    for (const site of outer) byFolders[`${site.from} -> ${site.to}`] = (byFolders[`${site.from} -> ${site.to}`] ?? 0) + 1;
    return {
      name: route.name,
      entry: `${rel(file)}#${route.fn}`,
      crossings: outer.length,
      backAndForth: outer.filter((site) => component.get(site.from) === component.get(site.to)).length,
      intoDomain: crossings.filter((site) => site.to === "domain").length,
      throughPorts: crossings.filter((site) => site.to === "ports").length,
      byFolders: Object.fromEntries(Object.entries(byFolders).sort(([a], [b]) => a.localeCompare(b))),
      ...(process.env.CROSSINGS_SITES ? { sites: [...sites.entries()].filter(([, site]) => site.to !== "domain" && site.to !== "ports").map(([key]) => key) } : {}),
    };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  console.log(JSON.stringify(countCrossings(process.argv[2] ?? "."), null, 2));
}
