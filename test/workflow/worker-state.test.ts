import { afterEach, describe, expect, it } from "@jest/globals";
import { tmpdir } from "node:os";
import { restoreWorkerState, snapshotWorkerState } from "../../src/app/workflow-runs/worker-state.js";

// MCP-9: what a reused worker puts back between runs (the worker process calls these around each run).
describe("MCP-9 worker state between runs", () => {
  const cwd = process.cwd();
  afterEach(() => {
    process.chdir(cwd);
    delete process.env.MCP9_ADDED;
  });

  it("MCP-9 restores added, changed and removed environment variables and the working directory; nothing left running", () => {
    process.env.MCP9_CHANGED = "before";
    process.env.MCP9_REMOVED = "present";
    const idle = snapshotWorkerState();
    process.env.MCP9_ADDED = "by the run";
    process.env.MCP9_CHANGED = "after";
    delete process.env.MCP9_REMOVED;
    process.chdir(tmpdir());
    expect(restoreWorkerState(idle)).toEqual([]);
    expect(process.env.MCP9_ADDED).toBeUndefined();
    expect(process.env.MCP9_CHANGED).toBe("before");
    expect(process.env.MCP9_REMOVED).toBe("present");
    expect(process.cwd()).toBe(cwd);
    delete process.env.MCP9_CHANGED;
    delete process.env.MCP9_REMOVED;
  });

  it("MCP-9 a run that puts another object in place of process.env gets the real environment back, restored", () => {
    process.env.MCP9_CHANGED = "before";
    const idle = snapshotWorkerState();
    const watching = process.env;
    process.env.MCP9_CHANGED = "changed through the proxy";
    process.env = { MCP9_ADDED: "a plain object" };
    expect(restoreWorkerState(idle)).toEqual([]);
    expect(process.env).toBe(watching);
    expect(process.env.MCP9_ADDED).toBeUndefined();
    expect(process.env.MCP9_CHANGED).toBe("before");
    // A second run that changes nothing finds the same environment; one that changes a variable gets it back.
    expect(restoreWorkerState(idle)).toEqual([]);
    process.env.MCP9_CHANGED = "again";
    expect(restoreWorkerState(idle)).toEqual([]);
    expect(process.env.MCP9_CHANGED).toBe("before");
    delete process.env.MCP9_CHANGED;
  });

  it("MCP-9 lists a timer the run left running, and nothing once it is cleared", () => {
    const idle = snapshotWorkerState();
    const timer = setInterval(() => undefined, 60_000);
    try {
      expect(restoreWorkerState(idle)).toEqual(["1 Timeout"]);
    } finally {
      clearInterval(timer);
    }
    expect(restoreWorkerState(idle)).toEqual([]);
  });

  it("MCP-9 an unref'd timer does not keep a worker from another run", () => {
    const idle = snapshotWorkerState();
    const timer = setInterval(() => undefined, 60_000).unref();
    try {
      expect(restoreWorkerState(idle)).toEqual([]);
    } finally {
      clearInterval(timer);
    }
  });
});
