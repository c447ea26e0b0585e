/**
 * ARCH-10: an agent places its sessions with one knob, `sessions` (a session backend, the same
 * value the session host takes), plus the specification's `databasePath` shorthand (AG-3, SES-1).
 * Read from the declared types with the TypeScript checker, so a placement option added back to
 * the public options (a store, a storage, a folder) fails here.
 */
import { describe, expect, it } from "@jest/globals";
import ts from "typescript";

const PLACEMENT = /^sessions$|store|storage|backend|databasepath|storedir/i;

// One program for the three files (ARCH-12): they share most of their imports, parsed once.
const FILES = ["src/app/agent/types.ts", "src/app/agent-node/create-agent-node.ts", "src/app/agent/extensions/types.ts"];
let program: ts.Program | undefined;

function optionNames(file: string, typeName: string): string[] {
  program ??= ts.createProgram(FILES, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const declaration = source.statements.find((statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === typeName);
  if (!declaration) throw new Error(`${typeName} is not declared in ${file}`);
  return checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(declaration.name)!).getProperties().map((property) => property.name);
}

describe("ARCH-10 one session-placement knob for agent runs", () => {
  it("ARCH-10 AgentOptions and AgentNodeOptions place sessions with sessions (plus SPEC's databasePath shorthand) only; session: { … } places nothing", () => {
    const agent = optionNames("src/app/agent/types.ts", "AgentOptions");
    expect(agent).toContain("workdir"); // the checker read the real type
    expect(agent.filter((name) => PLACEMENT.test(name)).sort()).toEqual(["databasePath", "sessions"]);
    const node = optionNames("src/app/agent-node/create-agent-node.ts", "AgentNodeOptions");
    expect(node.filter((name) => PLACEMENT.test(name)).sort()).toEqual(["databasePath", "sessions"]);
    const session = optionNames("src/app/agent/extensions/types.ts", "AgentSessionOptions");
    expect(session).toContain("toolSearch");
    expect(session.filter((name) => PLACEMENT.test(name))).toEqual([]);
  });
});
