import { rmSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { harness, offlineNode, ofKind, runNode } from "../agent/helpers.js";
import { tempDir } from "../session-host/helpers.js";

describe("EXT-5 session.environment: a stable execution target", () => {
  it("EXT-5 the environment is chosen once per session and kept across turns; a run whose environment disappeared fails clearly", async () => {
    const h = harness();
    const root = tempDir("ext5-");
    const first = join(root, "checkout");
    const other = join(root, "other");
    mkdirSync(first);
    mkdirSync(other);
    const { node } = offlineNode([{ toolCalls: [{ name: "ls", arguments: { path: "." } }] }, { text: "listed" }, { text: "again" }], { h, permissionPolicy: "read-only", session: { environment: { workdir: first } } });
    const one = await runNode(node, { prompt: "ls" }, h.context("run-env-1"));
    expect(one.output?.workdir).toBe(first);
    // A later turn configured elsewhere (and asking for another workdir) keeps the session's target.
    const { node: moved } = offlineNode([{ text: "kept" }], { h, session: { environment: { workdir: other } } });
    const two = await runNode(moved, { prompt: "where?", workdir: other }, h.context("run-env-2"));
    expect(two.output?.workdir).toBe(first);
    rmSync(first, { recursive: true, force: true });
    const three = await runNode(moved, { prompt: "still there?" }, h.context("run-env-3"));
    expect(isSteamharnessError(three.error, "unavailable")).toBe(true);
    expect(String(ofKind(three.items, "agent-error")[0]?.content)).toContain(`the session's environment is gone: ${first} no longer exists`);
  });

  it("EXT-5 ARCH-9 the check asks the runtime a host hands down (directoryExists), not the disk directly", async () => {
    const h = harness();
    const workdir = tempDir("ext5-runtime-");
    const asked: string[] = [];
    const context = h.context("run-env-host");
    const runtime = {
      ...context.runtime,
      directoryExists: async (path: string) => {
        asked.push(path);
        return false;
      },
    };
    const { node } = offlineNode([{ text: "never" }], { h, session: { environment: { workdir, allowedDirectories: [h.workdir] } } });
    const outcome = await runNode(node, { prompt: "there?" }, { ...context, runtime });
    expect(asked).toEqual([workdir]);
    expect(isSteamharnessError(outcome.error, "unavailable")).toBe(true);
    expect(String(ofKind(outcome.items, "agent-error")[0]?.content)).toContain(`the session's environment is gone: ${workdir} no longer exists`);
  });

  it("EXT-5 bash runs with the environment's variables and shell, and nothing else of the host's environment", async () => {
    const h = harness();
    const workdir = tempDir("ext5-shell-");
    process.env.EXT5_SECRET = "leaked";
    const { node } = offlineNode([{ toolCalls: [{ name: "bash", arguments: { command: 'echo "$GREETING|$0|${EXT5_SECRET:-none}|$(pwd)"' } }] }, { text: "ran" }], {
      h,
      permissionPolicy: "full",
      session: { environment: { workdir, env: { GREETING: "hello" }, shell: "/bin/sh" } },
    });
    const outcome = await runNode(node, { prompt: "run" }, h.context("run-shell"));
    delete process.env.EXT5_SECRET;
    const row = outcome.items.find((item) => (item.content as { tool?: string }).tool === "bash");
    expect((row?.content as { result: string }).result).toContain(`hello|/bin/sh|none|${workdir}`);
  });
});
