import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { alive, cleanEnv, CLI_SOURCE, cleanup, KITCHEN, REPO, runCli, startMcp, tempDir, waitFor, writeProject, type McpSession } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(180_000);

// MCP-9 (issue 16): the host starts with the process, the catalog is cached per project content,
// and a pool of warm workers runs calls side by side. Every assertion here is about order or
// presence (marker files written by the fixture's workers, process lists), never about time.

const PROJECT_ID = "9a1f7c3e-5b2d-4e6f-8a9b-0c1d2e3f4a5b";

// The fixture's module writes `loading-<pid>` as soon as a worker imports it, waits while
// `gate-closed` exists in the marks dir, then writes `loaded-<pid>`: the test decides when workers
// may finish loading, and sees which processes loaded the project.
const WORKFLOW = `import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { getEventListeners } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PING_TITLE } from "./lib/titles.mjs";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const marks = process.env.MCP9_MARKS;
if (marks) {
  mkdirSync(marks, { recursive: true });
  writeFileSync(join(marks, "loading-" + process.pid), "");
  while (existsSync(join(marks, "gate-closed"))) await sleep(20);
  writeFileSync(join(marks, "loaded-" + process.pid), "");
}
export default {
  entrypoints: {
    ping: { title: PING_TITLE, run: () => ({ pid: process.pid }) },
    barrier: {
      title: "Barrier",
      description: "Returns once count calls have arrived in dir",
      params: [{ name: "dir", type: "string", required: true }, { name: "count", type: "number", required: true }],
      async run(params) {
        mkdirSync(params.dir, { recursive: true });
        writeFileSync(join(params.dir, String(process.pid)), "");
        const deadline = Date.now() + 60000;
        while (readdirSync(params.dir).length < params.count) {
          if (Date.now() > deadline) return { errCode: 1, errMessage: "the barrier was never met: the calls did not run at the same time" };
          await sleep(20);
        }
        return { pid: process.pid, arrived: readdirSync(params.dir).length };
      },
    },
    hold: {
      title: "Hold",
      description: "Writes started, waits for gate, writes done",
      params: [{ name: "started", type: "string", required: true }, { name: "gate", type: "string", required: true }, { name: "done", type: "string", required: true }],
      async run(params) {
        writeFileSync(params.started, String(process.pid));
        while (!existsSync(params.gate)) await sleep(20);
        writeFileSync(params.done, "");
        return { pid: process.pid };
      },
    },
    probe: {
      title: "Probe",
      description: "Tells whether a file exists when the run starts",
      params: [{ name: "path", type: "string", required: true }],
      run: (params) => ({ existed: existsSync(params.path), pid: process.pid }),
    },
    fail: { title: "Fail", run: () => { throw new Error("fail on purpose"); } },
    business: { title: "Business error", run: () => ({ errCode: 4, errMessage: "no such order", output: { pid: process.pid } }) },
    log: {
      title: "Log",
      description: "Writes a line to stdout and to stderr, then returns",
      run: () => { console.log("log to stdout"); console.error("log to stderr"); return { pid: process.pid }; },
    },
    leak: {
      title: "Leak",
      description: "Returns but leaves a timer running",
      run: () => { setInterval(() => {}, 60000); return { pid: process.pid }; },
    },
    state: {
      title: "State",
      description: "Reports what an earlier run in this process left, then changes env, cwd and globals",
      run(params, context) {
        const previous = globalThis.__mcp9Previous;
        const seen = {
          pid: process.pid,
          runId: context.runId,
          env: process.env.MCP9_BLEED ?? null,
          cwd: process.cwd(),
          abortListeners: getEventListeners(context.signal, "abort").length,
          signalAborted: context.signal.aborted,
          previousRunId: previous ? previous.runId : null,
          sameSignal: previous ? previous.signal === context.signal : false,
          sameKv: previous ? previous.kv === context.kv : null,
        };
        process.env.MCP9_BLEED = "set by " + context.runId;
        process.chdir(tmpdir());
        context.signal.addEventListener("abort", () => {});
        globalThis.__mcp9Previous = context;
        return seen;
      },
    },
  },
};
`;

let tmp: string;
beforeAll(async () => {
  tmp = await tempDir("sh-mcp-pool-");
});
afterAll(async () => {
  await cleanup(tmp);
});

interface Fixture {
  project: string;
  marks: string;
  data: string;
  env: Record<string, string>;
}

async function fixture(name: string): Promise<Fixture> {
  const project = join(tmp, name, "project");
  await writeProject(project, {
    "package.json": JSON.stringify({ name, version: "1.0.0", type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": WORKFLOW,
    "lib/titles.mjs": `export const PING_TITLE = "Ping";\n`,
  });
  const marks = join(tmp, name, "marks");
  await mkdir(marks, { recursive: true });
  return { project, marks, data: join(tmp, name, "data"), env: cleanEnv({ MCP9_MARKS: marks }) };
}

const closeGate = (f: Fixture) => writeFile(join(f.marks, "gate-closed"), "");
const openGate = (f: Fixture) => rm(join(f.marks, "gate-closed"), { force: true });

async function pidsMarked(f: Fixture, prefix: "loading" | "loaded"): Promise<number[]> {
  const names = await readdir(f.marks);
  return names.filter((n) => n.startsWith(`${prefix}-`)).map((n) => Number(n.slice(prefix.length + 1)));
}

async function clearMarks(f: Fixture): Promise<void> {
  for (const name of await readdir(f.marks)) if (name !== "gate-closed") await rm(join(f.marks, name), { force: true });
}

/** Child process ids of `pid`, from the process table. */
function childPids(pid: number): number[] {
  const table = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" });
  return table
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([child, parent]) => parent === pid && child !== undefined && child > 0)
    .map(([child]) => child!);
}

const start = (f: Fixture, args: string[] = []) => startMcp(f.project, ["--data-dir", f.data, ...args], { env: f.env });
/**
 * Starts a server on a fresh fixture `name` with `args`, waits for its catalog, runs `body`, and
 * closes the server whatever happens; resolves the fixture.
 */
async function withServer(name: string, args: string[], body: (session: McpSession, f: Fixture) => Promise<void>): Promise<Fixture> {
  const f = await fixture(name);
  const session = await start(f, args);
  try {
    await session.client.listTools();
    await body(session, f);
  } finally {
    await session.close();
  }
  return f;
}
const call = (session: McpSession, name: string, args: Record<string, unknown> = {}) =>
  session.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const outputOf = (result: CallToolResult) => {
  if (result.isError) throw new Error(`the call failed: ${JSON.stringify(result.structuredContent)}`);
  return (result.structuredContent as { output: Record<string, unknown> }).output;
};
/** The marker files of the `hold` entrypoint: it writes its pid to `started`, waits for `gate`, then writes `done` (`name` keeps apart the holds of tests sharing a fixture). */
const holdPaths = (f: Fixture, name = "hold") => ({ started: join(f.marks, `${name}-started`), gate: join(f.marks, `${name}-gate`), done: join(f.marks, `${name}-done`) });
/** Waits until a `hold` run has started; resolves its worker's pid. */
const holdStarted = async (paths: { started: string }): Promise<number> => {
  // The file exists before its pid is written (writeFileSync opens, then writes): an empty read
  // is not a pid (Number("") is 0, and process.kill(0, 0) signals the whole group, "alive").
  let pid = 0;
  await waitFor(async () => {
    pid = Number(await readFile(paths.started, "utf8").catch(() => "0"));
    return pid > 0;
  }, 60_000);
  return pid;
};
/** Waits until the server process `pid` has exited (its transport forgets the pid once closed, so it is taken before). */
const exited = (pid: number) => waitFor(() => !alive(pid), 15_000);

describe("MCP-9 start-up and the catalog cache", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture("startup");
  });

  it("MCP-9 the workers start loading the project when the process starts, before the client sends initialize", async () => {
    await closeGate(f);
    const transport = new StdioClientTransport({ command: process.execPath, args: [...CLI_SOURCE, "mcp", f.project, "--data-dir", f.data], env: f.env, cwd: REPO, stderr: "pipe" });
    await transport.start();
    const client = new Client({ name: "mcp-9", version: "1.0.0" });
    try {
      // Not one byte has been sent to the server: a worker importing the project proves it.
      await waitFor(async () => (await pidsMarked(f, "loading")).length > 0, 60_000);
      expect(await pidsMarked(f, "loaded")).toEqual([]);
      await openGate(f);
      transport.start = async () => undefined; // already started above; Client.connect calls it again
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["ping", "barrier", "hold", "probe", "fail", "business", "log", "leak", "state"]);
    } finally {
      await client.close();
    }
  });

  it("MCP-9 the second start answers the first tools/list from the cache in the data dir while no worker has loaded the project", async () => {
    const first = await start(f);
    let listed: unknown;
    try {
      listed = (await first.client.listTools()).tools;
    } finally {
      await first.close();
    }
    const cacheFile = join(f.data, "cache", "mcp-catalog", `${PROJECT_ID}.json`);
    expect(existsSync(cacheFile)).toBe(true);
    expect(existsSync(join(REPO, "cache"))).toBe(false);

    await clearMarks(f);
    await closeGate(f);
    const second = await start(f);
    try {
      const { tools } = await second.client.listTools();
      expect(tools).toEqual(listed);
      // Workers are held at the gate, so this catalog cannot have come from one of them.
      expect(await pidsMarked(f, "loaded")).toEqual([]);
      expect(second.stderr()).toContain("tools from the cache");
      await openGate(f);
      expect(outputOf(await call(second, "ping")).pid).toEqual(expect.any(Number));
    } finally {
      await second.close();
    }
  });

  it("MCP-9 editing a file the project imports invalidates the cache: the next start publishes the new catalog", async () => {
    await openGate(f);
    const warm = await start(f);
    try {
      expect((await warm.client.listTools()).tools.find((tool) => tool.name === "ping")?.title).toBe("Ping");
    } finally {
      await warm.close();
    }
    await writeFile(join(f.project, "lib/titles.mjs"), `export const PING_TITLE = "Ping, edited";\n`);
    const edited = await start(f);
    try {
      expect((await edited.client.listTools()).tools.find((tool) => tool.name === "ping")?.title).toBe("Ping, edited");
      expect(edited.stderr()).toContain("tools loaded by a worker");
    } finally {
      await edited.close();
    }
    const cached = JSON.parse(await readFile(join(f.data, "cache", "mcp-catalog", `${PROJECT_ID}.json`), "utf8")) as { structure: { entrypoints: Array<{ title: string }> } };
    expect(cached.structure.entrypoints[0]!.title).toBe("Ping, edited");
  });
});

describe("MCP-9 worker pool", () => {
  it("MCP-9 with --workers 3, three calls run at the same time (each waits until all three have arrived)", async () => {
    await withServer("parallel", ["--workers", "3"], async (session, f) => {
      const dir = join(f.marks, "barrier");
      const results = await Promise.all([1, 2, 3].map(() => call(session, "barrier", { dir, count: 3 })));
      const outputs = results.map(outputOf);
      expect(outputs.map((output) => output.arrived)).toEqual([3, 3, 3]);
      expect(new Set(outputs.map((output) => output.pid)).size).toBe(3);
    });
  });

  it("MCP-9 with --workers 1 a second call waits for the first, says so in a progress notification, then runs", async () => {
    await withServer("queue", ["--workers", "1"], async (session, f) => {
      const paths = holdPaths(f);
      const holding = call(session, "hold", paths);
      await holdStarted(paths);
      const messages: string[] = [];
      const probing = session.client.callTool({ name: "probe", arguments: { path: paths.done } }, undefined, {
        onprogress: (progress) => messages.push(progress.message ?? ""),
      }) as Promise<CallToolResult>;
      await waitFor(() => messages.some((message) => message.startsWith("waiting for a free worker (1 runs in progress)")), 60_000);
      await writeFile(paths.gate, "");
      expect(outputOf(await holding).pid).toEqual(expect.any(Number));
      // The probe's run started only after the hold's run had written `done`.
      expect(outputOf(await probing).existed).toBe(true);
    });
  });

  it("MCP-9 with --fresh-worker a replacement worker is started when a worker is handed out, and serves the next call", async () => {
    await withServer("replace", ["--workers", "1", "--fresh-worker"], async (session, f) => {
      await waitFor(async () => (await pidsMarked(f, "loaded")).length === 1, 60_000);
      const [warm] = await pidsMarked(f, "loaded");
      const served = outputOf(await call(session, "ping")).pid as number;
      expect(served).toBe(warm);
      // Right after the first call returns, another worker already exists beside the used one.
      const replacements = childPids(session.transport.pid!).filter((pid) => pid !== served);
      expect(replacements.length).toBeGreaterThanOrEqual(1);
      const next = outputOf(await call(session, "ping")).pid as number;
      expect(replacements).toContain(next);
    });
  });

  it("MCP-9 a worker killed during a call fails that call with a clear error, and a replacement serves the next one", async () => {
    await withServer("crash", ["--workers", "2"], async (session, f) => {
      const paths = holdPaths(f);
      const holding = call(session, "hold", paths);
      process.kill(await holdStarted(paths), "SIGKILL");
      const result = await holding;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ status: "failed", error: { code: "worker_crashed", message: "the run failed: the worker was killed by SIGKILL" } });
      expect(outputOf(await call(session, "ping")).pid).toEqual(expect.any(Number));
    });
  });

  it.each([
    ["the client closes stdin", (session: McpSession) => session.close()],
    ["the server gets SIGTERM", async (session: McpSession) => void process.kill(session.transport.pid!, "SIGTERM")],
  ])("MCP-9 no worker process remains after %s", async (_label, end) => {
    const f = await fixture(`leak-${Math.random().toString(16).slice(2, 8)}`);
    const session = await start(f, ["--workers", "3"]);
    const server = session.transport.pid!;
    try {
      await session.client.listTools();
      // A throwing run retires its worker: three warm workers again, plus the retired one.
      expect((await call(session, "fail")).isError).toBe(true);
      await waitFor(async () => (await pidsMarked(f, "loaded")).length >= 4, 90_000);
      const workers = new Set([...(await pidsMarked(f, "loading")), ...childPids(server)]);
      expect(workers.size).toBeGreaterThanOrEqual(4);
      await end(session);
      await exited(server);
      await waitFor(() => [...workers].every((pid) => !alive(pid)), 10_000);
    } finally {
      await session.close().catch(() => undefined);
    }
  });
});

describe("MCP-9 worker reuse", () => {
  const pidOf = async (session: McpSession, name = "ping") => outputOf(await call(session, name)).pid as number;
  const gone = (pid: number) => waitFor(() => !alive(pid), 15_000);
  // The four retirement tests share one server (ARCH-12: a server and its worker fewer to start
  // for each): each one retires the worker that served it and checks that the next call runs in
  // another process, which holds whatever the server served before.
  let retiring: { session: McpSession; f: Fixture };
  beforeAll(async () => {
    const f = await fixture("retire");
    retiring = { session: await start(f, ["--workers", "1"]), f };
    await retiring.session.client.listTools();
  });
  // The three tests whose calls all end cleanly share another (ARCH-12): none of them retires
  // its worker, so each still sees the one worker the server keeps, whichever ran before.
  let reusing: { session: McpSession; f: Fixture };
  beforeAll(async () => {
    const f = await fixture("reuse");
    reusing = { session: await start(f, ["--workers", "1"]), f };
    await reusing.session.client.listTools();
  });
  afterAll(async () => {
    await retiring?.session.close();
    await reusing?.session.close();
  });

  it("MCP-9 a worker whose call ended cleanly serves the next calls (same pid), a business errCode included", async () => {
    const { session } = reusing;
    const first = await pidOf(session);
    expect(await pidOf(session)).toBe(first);
    const business = await call(session, "business");
    expect(business.isError).toBe(true);
    expect(business.structuredContent).toMatchObject({ status: "failed", error: { code: "business_error", message: "no such order" } });
    expect(await pidOf(session)).toBe(first);
    expect(childPids(session.transport.pid!)).toEqual([first]);
  });

  it("MCP-9 --max-runs-per-worker retires a reused worker after that many runs; a bad value exits 2", async () => {
    const f = await withServer("max-runs", ["--workers", "1", "--max-runs-per-worker", "2"], async (session) => {
      const pids = [await pidOf(session), await pidOf(session), await pidOf(session), await pidOf(session)];
      expect(pids[1]).toBe(pids[0]);
      expect(pids[2]).not.toBe(pids[0]);
      expect(pids[3]).toBe(pids[2]);
      await gone(pids[0]!);
    });
    const bad = await runCli(["mcp", f.project, "--max-runs-per-worker", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-runs-per-worker must be a whole number from 1 to 1000000, got "0"');
  });

  it("MCP-9 with --fresh-worker every call gets a worker process of its own", async () => {
    await withServer("fresh", ["--workers", "1", "--fresh-worker"], async (session) => {
      const pids = [await pidOf(session), await pidOf(session), await pidOf(session)];
      expect(new Set(pids).size).toBe(3);
    });
  });

  it("MCP-9 a call that throws retires its worker; the next call runs in a new one", async () => {
    const { session } = retiring;
    const before = await pidOf(session);
    expect((await call(session, "fail")).structuredContent).toMatchObject({ status: "failed", error: { message: "fail on purpose" } });
    await gone(before);
    expect(await pidOf(session)).not.toBe(before);
  });

  it("MCP-9 a cancelled call's worker is killed and the next call runs in a new one", async () => {
    const { session, f } = retiring;
    const paths = holdPaths(f, "cancel");
    const controller = new AbortController();
    const holding = session.client.callTool({ name: "hold", arguments: paths }, undefined, { signal: controller.signal });
    holding.catch(() => undefined);
    const held = await holdStarted(paths);
    controller.abort("the test cancels");
    await expect(holding).rejects.toThrow();
    await gone(held);
    expect(await pidOf(session)).not.toBe(held);
  });

  it("MCP-9 a crashed worker is replaced: the next call runs in a new process", async () => {
    const { session, f } = retiring;
    const paths = holdPaths(f, "crash");
    const holding = call(session, "hold", paths);
    const held = await holdStarted(paths);
    process.kill(held, "SIGKILL");
    expect((await holding).structuredContent).toMatchObject({ status: "failed", error: { code: "worker_crashed" } });
    expect(await pidOf(session)).not.toBe(held);
  });

  it("MCP-9 a call that leaves a timer running retires its worker and says why on stderr", async () => {
    const { session } = retiring;
    const leaked = await pidOf(session, "leak");
    await gone(leaked);
    expect(session.stderr()).toMatch(/run \d{8}-[0-9a-f]{12} \(leak\) left 1 Timeout running: its worker serves no further run/);
    expect(await pidOf(session)).not.toBe(leaked);
  });

  it("MCP-9 a call that writes to stdout and stderr for the first time keeps its worker: the streams belong to the idle worker, the next call runs in the same process", async () => {
    const { session } = reusing;
    const logged = await pidOf(session, "log");
    expect(await pidOf(session)).toBe(logged);
    expect(session.stderr()).not.toMatch(/serves no further run/);
  });

  it("MCP-9 a reused worker starts each run with a fresh run context, its own signal and the environment and cwd it had before the first run", async () => {
    const { session, f } = reusing;
    const first = outputOf(await call(session, "state"));
    const second = outputOf(await call(session, "state"));
    expect(second.pid).toBe(first.pid);
    expect(first).toMatchObject({ env: null, cwd: f.project, abortListeners: 0, previousRunId: null });
    expect(second).toMatchObject({
      env: null,
      cwd: f.project,
      abortListeners: 0,
      signalAborted: false,
      previousRunId: first.runId,
      sameSignal: false,
      // The stores stay open across runs: the same store objects serve the next run.
      sameKv: true,
    });
    expect(second.runId).not.toBe(first.runId);
  });

  it("MCP-9 with --workers 4, four calls overlap in four workers, and the next four overlap in the same four reused workers", async () => {
    await withServer("overlap", ["--workers", "4"], async (session, f) => {
      const round = async (name: string) => {
        const dir = join(f.marks, name);
        const outputs = (await Promise.all([1, 2, 3, 4].map(() => call(session, "barrier", { dir, count: 4 })))).map(outputOf);
        expect(outputs.map((output) => output.arrived)).toEqual([4, 4, 4, 4]);
        return new Set(outputs.map((output) => output.pid as number));
      };
      const first = await round("round-1");
      expect(first.size).toBe(4);
      expect(await round("round-2")).toEqual(first);
    });
  });

  it("MCP-9 editing a project file retires the reused workers: the next call runs the new code in a new worker", async () => {
    await withServer("edit", ["--workers", "1"], async (session, f) => {
      const before = await pidOf(session);
      await writeFile(join(f.project, "lib/titles.mjs"), `export const PING_TITLE = "Ping, edited while serving";\n`);
      await gone(before);
      expect(await pidOf(session)).not.toBe(before);
    });
  });
});

describe("MCP-9 project edits while workers load", () => {
  it("MCP-9 an edit while the first worker is still loading retires it; its replacement publishes the catalog and serves the call", async () => {
    const f = await fixture("edit-loading");
    await closeGate(f);
    // The client connects at once, while the first worker loads, and its handshake stays pending
    // (the initialize answer waits for the catalog, MCP-15): awaiting it before the edit would
    // only sit out HANDSHAKE_CATALOG_WAIT_MS (10 s) with the gate closed. It completes once the
    // replacement has loaded, after the gate opens.
    const starting = start(f, ["--workers", "1"]);
    starting.catch(() => undefined);
    try {
      await waitFor(async () => (await pidsMarked(f, "loading")).length === 1, 60_000);
      const [first] = await pidsMarked(f, "loading");
      await writeFile(join(f.project, "lib/titles.mjs"), `export const PING_TITLE = "Ping, edited while loading";\n`);
      await waitFor(() => !alive(first!), 15_000);
      await waitFor(async () => (await pidsMarked(f, "loading")).length === 2, 60_000);
      await openGate(f);
      const session = await starting;
      const { tools } = await session.client.listTools();
      expect(tools.find((tool) => tool.name === "ping")?.title).toBe("Ping, edited while loading");
      const served = outputOf(await call(session, "ping")).pid as number;
      expect(served).not.toBe(first);
    } finally {
      await (await starting.catch(() => undefined))?.close();
    }
  });
});

describe("MCP-9 --workers", () => {
  it.each([["0"], ["65"], ["1.5"], ["abc"], ["-1"], [""]])("MCP-9 --workers=%s is refused as invalid input (exit code 2, nothing on stdout)", async (value) => {
    const result = await runCli(["mcp", KITCHEN, `--workers=${value}`]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`--workers must be a whole number from 1 to 64, got ${JSON.stringify(value)}`);
  });

  it("MCP-9 --workers is documented in mcp --help", async () => {
    const result = await runCli(["mcp", "--help"]);
    expect(result.code).toBe(0);
    const help = result.stdout.replace(/\s+/g, " ");
    expect(help).toContain("--workers <n> worker processes kept warm, and tool calls run at once (1-64, default 2)");
    expect(help).toContain("A worker whose call ended cleanly serves the next one");
    expect(help).toContain("--fresh-worker run every tool call in a fresh worker process that serves only that call");
  });
});
