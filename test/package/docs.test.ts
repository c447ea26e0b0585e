import ts from "typescript";
import { libraryEntries } from "../../tsup.config.js";

// Every public function and class carries a doc comment with an @example (house style): checked
// on the exported symbols of every entry, resolved through re-exports to their declarations.
// Only the sources' own modules are read (ARCH-12): relative imports are resolved, packages and
// TypeScript's lib are not — they held five in six of the program's files and most of this
// test's CPU, and no export is declared there (an export whose declaration is not found fails).
function undocumented(): string[] {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, allowJs: false, noEmit: true, skipLibCheck: true, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containingFile, _redirect, compilerOptions) =>
    literals.map((literal) => (literal.text.startsWith(".") ? ts.resolveModuleName(literal.text, containingFile, compilerOptions, host) : { resolvedModule: undefined }));
  const program = ts.createProgram({ rootNames: Object.values(libraryEntries), options, host });
  const checker = program.getTypeChecker();
  const missing = new Set<string>();
  for (const [entry, file] of Object.entries(libraryEntries)) {
    const source = program.getSourceFile(file)!;
    for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (!declaration) {
        missing.add(`${entry}: ${exported.name} (declaration not found: re-exported from a package?)`);
        continue;
      }
      const isCallable = ts.isFunctionDeclaration(declaration) || ts.isClassDeclaration(declaration) ||
        (ts.isVariableDeclaration(declaration) && declaration.initializer !== undefined && (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer)));
      if (!isCallable) continue;
      const tags = ts.getJSDocTags(ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration);
      const hasDoc = ts.getJSDocCommentsAndTags(ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration).length > 0;
      if (!hasDoc || !tags.some((tag) => tag.tagName.text === "example")) missing.add(`${entry}: ${exported.name} (${declaration.getSourceFile().fileName})`);
    }
  }
  return [...missing].sort();
}

describe("public API documentation", () => {
  it("every exported function and class has a doc comment with an @example", () => {
    expect(undocumented()).toEqual([]);
  }, 120_000);
});
