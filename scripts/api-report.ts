/**
 * The API report (ARCH-11): every name each package entry exports, values and types, with its
 * declaration as the built `.d.ts` files state it — what a consumer's compiler sees, after tsup's
 * declaration bundling — written to `api/<entry>.api.md`. The ARCH-11 test regenerates it from
 * `dist/` and fails on a difference, so the public face changes only by a reviewed diff.
 *
 *   npm run build && npm run api-report     # rewrite api/*.api.md
 *
 * The TypeScript compiler API reads the declarations (API Extractor is not a dependency here,
 * and the compiler already is). Comments are left out: a JSDoc edit is not an API change.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { libraryEntries } from "../tsup.config.js";

/** The command that rewrites the report; test failures print it. */
export const API_REPORT_COMMAND = "npm run build && npm run api-report";

/** One exported name of an entry. */
export interface ApiExport {
  name: string;
  /** `function`, `class`, `const`, `interface`, `type`, `enum`, `namespace`, or `value+type` pairs as `const+type`. */
  kind: string;
  /** Whether the name is usable at runtime (a value), not only as a type. */
  value: boolean;
  /** The declarations, printed without comments. */
  declaration: string;
}

const KINDS: Array<[(node: ts.Node) => boolean, string]> = [
  [ts.isFunctionDeclaration, "function"],
  [ts.isClassDeclaration, "class"],
  [ts.isVariableDeclaration, "const"],
  [ts.isInterfaceDeclaration, "interface"],
  [ts.isTypeAliasDeclaration, "type"],
  [ts.isEnumDeclaration, "enum"],
  [ts.isModuleDeclaration, "namespace"],
];

/** The declaration text of one node, comments dropped, `export`/`declare` modifiers left out. */
function printDeclaration(printer: ts.Printer, node: ts.Node): string {
  const statement = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  const text = printer.printNode(ts.EmitHint.Unspecified, statement, node.getSourceFile());
  return text.replace(/^(export )?(declare )?/, "");
}

/**
 * The exports of every library entry, read from `dist/<entry>.d.ts`, sorted by name.
 *
 * @example
 * const report = readApiReport("dist");
 * console.log(report.index.length); // names in the root entry
 */
export function readApiReport(distDir: string): Record<string, ApiExport[]> {
  const files = Object.keys(libraryEntries).map((entry) => resolve(distDir, `${entry}.d.ts`));
  const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, types: ["node"] });
  const checker = program.getTypeChecker();
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  const report: Record<string, ApiExport[]> = {};
  for (const [index, entry] of Object.keys(libraryEntries).entries()) {
    const source = program.getSourceFile(files[index]!);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`[steamharness] [api-report] ${files[index]} is missing: run \`npm run build\` first`);
    report[entry] = checker
      .getExportsOfModule(moduleSymbol)
      .map((exported) => {
        const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const declarations = target.declarations ?? [];
        const kinds = [...new Set(declarations.map((node) => KINDS.find(([is]) => is(node))?.[1] ?? ts.SyntaxKind[node.kind]))];
        // `export { X as Y }` keeps its declared name in the text: say which name it is exported as.
        const renamed = target.name !== exported.name && target.name !== "default" ? `// exported as ${exported.name}\n` : "";
        return {
          name: exported.name,
          kind: kinds.join("+"),
          value: (target.flags & ts.SymbolFlags.Value) !== 0,
          declaration: renamed + declarations.map((node) => printDeclaration(printer, node)).join("\n"),
        };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return report;
}

/** The subpath a consumer imports an entry by. */
function specifier(entry: string): string {
  return entry === "index" ? "steamharness" : `steamharness/${entry}`;
}

/**
 * The Markdown of one entry's report: a count line, then one section per name (`## name (kind)`)
 * with its declaration.
 *
 * @example
 * const markdown = renderApiReport("sqlite", readApiReport("dist").sqlite!);
 */
export function renderApiReport(entry: string, exports: ApiExport[]): string {
  const values = exports.filter((item) => item.value).length;
  const lines = [
    `# API report: \`${specifier(entry)}\``,
    "",
    `Generated from \`dist/${entry}.d.ts\` by scripts/api-report.ts (\`${API_REPORT_COMMAND}\`); do not edit by hand.`,
    "The ARCH-11 test fails when the build differs from this file: a change here is a change of the public face.",
    "",
    `${exports.length} names: ${values} values, ${exports.length - values} types only.`,
  ];
  for (const item of exports) lines.push("", `## ${item.name} (${item.kind})`, "", "```ts", item.declaration, "```");
  return `${lines.join("\n")}\n`;
}

/**
 * The names of every entry as the checked-in report lists them (for tests that need the public
 * names without a build).
 *
 * @example
 * const rootNames = readCheckedInApiNames("api").index;
 */
export function readCheckedInApiNames(apiDir: string): Record<string, string[]> {
  return Object.fromEntries(Object.keys(libraryEntries).map((entry) => [entry, [...readFileSync(join(apiDir, `${entry}.api.md`), "utf8").matchAll(/^## (\S+) \(/gm)].map((match) => match[1]!)]));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve("scripts/api-report.ts")) {
  const report = readApiReport("dist");
  mkdirSync("api", { recursive: true });
  for (const [entry, exports] of Object.entries(report)) writeFileSync(join("api", `${entry}.api.md`), renderApiReport(entry, exports));
  console.log(Object.entries(report).map(([entry, exports]) => `${specifier(entry)}: ${exports.length}`).join("\n"));
}
