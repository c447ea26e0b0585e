/**
 * DX-3: every backticked name in README.md and docs/*.md that looks like a steamharness function
 * (`createXxx`, `runXxx(…)`, `parseXxx`, …) is exported from one of the package's entries
 * (api/<entry>.api.md, which test/package/api-report.test.ts keeps equal to the build), or
 * is listed below as a documented name that is not an export — a method, an option, a field — with
 * what it is. Names imported from `steamharness*` inside code blocks are checked by the type-check
 * of docs-blocks.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { readCheckedInApiNames } from "../../scripts/api-report.js";

const FUNCTION_LIKE = /^(create|run|start|define|load|take|parse|resolve|control|cancel|choose|read|accept|open|snapshot|final|is|agent|describe|build)[A-Z][A-Za-z0-9]*$/;

// Documented names that are not exports, each with what it is. A stale entry fails the test.
const NOT_EXPORTS: Record<string, string> = {
  createMcpHandler: "the MCP SDK v2's stateless request handler (docs/mcp-http.md, MCP-17)",
  isLegacyRequest: "the MCP SDK v2's test for a 2025-11-25 request (docs/mcp-http.md, MCP-17)",
  createRequestStateCodec: "the MCP SDK v2's HMAC codec of an input-required result's requestState (docs/mcp-http.md, MCP-19)",
  startSpan: "the OpenTelemetry API's Tracer method (docs/observability.md, the bare-SDK floor)",
  runId: "a field / option (the run's id)",
  agentStoreDir: "an option (the SQLite session folder)",
  createSqliteSessionPool: "removed in the README changelog (ARCH-8: createSqliteSessionBackend keeps warm sessions)",
  openUnleased: "a SessionBackend method",
  openAgentSessionHost: "the application's session host (src/app/session-host), opened by createAgentSessionHost",
  openProjectRunner: "the workflow-run use case's opener of a project (src/app/workflow-runs/project-runner.ts), which the CLI and MCP call on SurfaceServices.workflowRunPorts",
  openHostStore: "a SessionBackend method",
  openConversationProject: "the application's conversation-project opener (src/app/conversation), which chat and the gateway call with SurfaceServices.textFiles; loadAgentConversationProject is the public one",
  createTools: "an agent option",
  readRun: "a SessionStore method",
  readAfter: "a SessionStore method",
  isHeld: "a PostgresLeasedSessionStore method",
  isError: "a field of an MCP tool result",
  runInBackground: "a session-host runtime method",
  openViewStorage: "an internal function, named with its file (src/adapters/driving/viewer/view-run.ts)",
  createSurfaceServices: "the composition root's builder of the CLI's services, named with its file (src/compose/surface-services.ts)",
  openProcessRuntime: "the composition root's runtime of one CLI process, named with its file (src/compose/telemetry.ts)",
  createMemorySessionRows: "the memory family's session row driver under the kernel's session store, named with its file (ARCH-8 in docs/architecture.md)",
  createSqlMcpTaskStore: "the kernel's MCP task store on the SQL row driver, named with its file (ARCH-8 in docs/architecture.md)",
  buildRunTimeline: "an internal function of the viewer, named with its file (src/adapters/driving/viewer/run-timeline.ts)",
  buildToolIndex: "an internal domain function, named with its file (src/domain/agent/tool-index.ts)",
  buildTranscript: "an internal domain function, named with its file (src/domain/agent/transcript.ts; the viewer serves it as GET /api/transcript, UI-7)",
  buildNodeContext: "the application's node-context builder that createNodeContext binds to the root's runtime (src/app/node-context/node-context.ts)",
  resolveParams: "a workflow param feature (dynamic options), named as in workflow projects",
  createMessage: "the method of a workflow run's context.sampling (WorkflowSampling), MCP sampling",
};

const pages = ["README.md", ...readdirSync("docs").filter((name) => name.endsWith(".md")).sort().map((name) => `docs/${name}`)];
const exported = new Set(Object.values(readCheckedInApiNames("api")).flat());

function documentedNames(): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const page of pages) {
    const prose = readFileSync(page, "utf8").replace(/^```[\s\S]*?^```/gm, "");
    for (const [, span] of prose.matchAll(/`([^`\n]+)`/g)) {
      const name = /^([a-z][A-Za-z0-9]*)(\(|$)/.exec(span!)?.[1];
      if (name && FUNCTION_LIKE.test(name)) names.set(name, (names.get(name) ?? new Set()).add(page));
    }
  }
  return names;
}

describe("DX-3: documented names exist", () => {
  const names = documentedNames();

  it("DX-3: every documented function-like name is exported from steamharness or one of its subpaths (or listed as not an export)", () => {
    const unknown = [...names].filter(([name]) => !exported.has(name) && !(name in NOT_EXPORTS)).map(([name, where]) => `${name} (${[...where].join(", ")})`);
    expect(unknown).toEqual([]);
    expect(names.size).toBeGreaterThan(30);
  });

  it("DX-3: the list of documented non-exports has no stale entry", () => {
    expect(Object.keys(NOT_EXPORTS).filter((name) => !names.has(name) || exported.has(name))).toEqual([]);
  });
});
