// MCP-10: the MCP SDK sits behind one adapter folder, so a move to SDK v2 (spec 2026-07-28)
// touches only src/adapters/driving/mcp. Read from the real tree with the architecture graph's parser.
import { describe, expect, it } from "@jest/globals";
import { MCP_SDK_PACKAGES, PACKAGE_RULES, importsOf, sourceFiles } from "../../scripts/architecture-graph.js";

const BOUNDARY = "src/adapters/driving/mcp/";
// MCP-16: the v2 line (server, core) as well as v1 and ext-apps.
const isMcpSdk = (name: string) => MCP_SDK_PACKAGES.includes(name);

describe("MCP-10 one MCP transport boundary", () => {
  it("MCP-10 no file of src/ outside src/adapters/driving/mcp imports the MCP SDK, type-only and dynamic imports included", () => {
    const outside = sourceFiles(".")
      .filter((file) => !file.startsWith(BOUNDARY))
      .flatMap((file) => importsOf(".", file).filter((edge) => !edge.relative && isMcpSdk(edge.to)))
      .map((edge) => `${edge.from} → ${edge.specifier}`);
    expect(outside).toEqual([]);
  });

  it("MCP-10 MCP-16 the stdio and HTTP transports, the capability servers, elicitation and MCP Apps all import the SDK inside the boundary", () => {
    const inside = new Set(
      sourceFiles(".", "src/adapters/driving/mcp")
        .filter((file) => importsOf(".", file).some((edge) => !edge.relative && isMcpSdk(edge.to)))
        .map((file) => file.slice(BOUNDARY.length)),
    );
    for (const file of ["capability-server.ts", "card-app.ts", "workflow-elicitation.ts", "workflow-server.ts", "transport/stdio.ts", "transport/http-handler.ts", "transport/http-modern.ts"]) expect(inside).toContain(file);
  });

  it("MCP-10 the allow-list grants the SDK to the MCP adapter folder and to no other layer or folder", () => {
    const granted = Object.entries(PACKAGE_RULES)
      .filter(([, packages]) => packages.some(isMcpSdk))
      .map(([unit]) => unit);
    expect(granted).toEqual(["driving/mcp"]);
  });
});
