import { spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createPostgresApprovalStore } from "../../src/adapters/driven/postgres/postgres-approval-store.js";
import { createSqliteApprovalStore } from "../../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { webhookSignature } from "../../src/adapters/driven/system/escalation-webhook.js";
import { DEFAULT_APPROVAL_SWEEP_MS, startApprovalSweeper } from "../../src/app/approvals/approval-sweeper.js";
import { APPROVAL_SWEEP_MS_ENV, approvalSweepMs } from "../../src/adapters/driving/shared/escalation-webhook-option.js";
import { createGovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import type { ApprovalPolicy } from "../../src/domain/approvals/policy.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { describePostgres } from "../fixtures/postgres.js";
import { cleanEnv, cleanup, CLI_SOURCE, runCli, tempDir } from "../cli/helpers.js";

const SECRET = "a-shared-secret-of-32-characters";
const HOST = join(import.meta.dirname, "fixtures", "escalation-sweeper.ts");
const policyOf = (escalateAfterMs: number): ApprovalPolicy => ({
  approverGroups: { sre: [{ subject: "alice" }], security: [{ subject: "sec" }] },
  approvers: "sre",
  expiresAfterMs: 3_600_000,
  escalation: { afterMs: escalateAfterMs, to: "security" },
  rules: [],
});
const call = (requestId: string) => ({ requestId, runId: "run-1", toolId: "deploy", arguments: { env: "prod" }, requestedBy: { tenant: "key:acme", subject: "carol" } });

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Post { delivery: string; timestamp: string; signature: string; body: string; status: number }
/**
 * A loopback webhook receiver answering the n-th POST with `statuses[n]` (the last repeats); given
 * the `secret`, a POST whose signature is not the HMAC of its timestamp and body gets 401.
 */
async function receiver(statuses: number[], secret?: string): Promise<{ url: string; posts: Post[] }> {
  const posts: Post[] = [];
  const server: Server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    const signed = secret === undefined || request.headers["x-steamharness-signature"] === webhookSignature(secret, String(request.headers["x-steamharness-timestamp"]), body);
    const status = signed ? statuses[Math.min(posts.length, statuses.length - 1)]! : 401;
    posts.push({ delivery: String(request.headers["x-steamharness-delivery"]), timestamp: String(request.headers["x-steamharness-timestamp"]), signature: String(request.headers["x-steamharness-signature"]), body, status });
    response.statusCode = status;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/approvals`, posts };
}

const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 60_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe("GOV-3 approval sweeper", () => {
  it("GOV-3 the sweeper escalates a request whose wait passed and records the expiry of one past its deadline, without any call asking again", async () => {
    const clock = createFixedClock(Date.UTC(2026, 11, 2, 12));
    const store = createMemoryApprovalStore();
    const escalated: string[] = [];
    const permissions = createGovernedToolPermissions({ policy: { ...policyOf(60_000), rules: [{ tool: "drop", action: "ask", expiresAfterMs: 30_000, onExpiry: "deny" }] }, store, clock, onEscalation: (request, group) => void escalated.push(`${request.id}→${group}`) });
    await permissions.request(call("approval:deploy"));
    await permissions.request({ ...call("approval:drop"), toolId: "drop" });
    expect(await permissions.sweep()).toBe(0);
    clock.advance(30_000);
    expect(await permissions.sweep()).toBe(1);
    clock.advance(30_000);
    expect(await permissions.sweep()).toBe(1);
    expect(await permissions.sweep()).toBe(0);
    expect(escalated).toEqual(["approval:deploy→security"]);
    expect((await store.audit("key:acme")).map((entry) => [entry.kind, entry.requestId])).toEqual([
      ["request", "approval:deploy"],
      ["request", "approval:drop"],
      ["expiry", "approval:drop"],
      ["escalation", "approval:deploy"],
    ]);
    expect((await store.request("approval:drop"))?.state).toBe("expired");
  });

  it("GOV-3 startApprovalSweeper sweeps on its interval until stopped, and a failed sweep is reported, not thrown", async () => {
    let sweeps = 0;
    const errors: unknown[] = [];
    const sweeper = startApprovalSweeper({ sweep: async () => (++sweeps === 2 ? Promise.reject(new Error("store down")) : 0) }, { intervalMs: 10, onError: (error) => errors.push(error) });
    await until(() => sweeps >= 3, "three sweeps");
    await sweeper.stop();
    await sweeper.stop();
    const stoppedAt = sweeps;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sweeps).toBe(stoppedAt);
    expect(errors).toEqual([expect.objectContaining({ message: "store down" })]);
  });
});

describePostgres("GOV-3 escalation timer across hosts on PostgreSQL", (database) => {
  it("GOV-3 ARCH-12 the CLI hosts sweep every DEFAULT_APPROVAL_SWEEP_MS (the sweeper's default: no interval given) unless STEAMHARNESS_APPROVAL_SWEEP_MS names a whole number of milliseconds (10 or more); any other value is input_validation naming the variable", () => {
    expect(approvalSweepMs({})).toBeUndefined();
    expect(approvalSweepMs({ [APPROVAL_SWEEP_MS_ENV]: "" })).toBeUndefined();
    expect(DEFAULT_APPROVAL_SWEEP_MS).toBe(10_000);
    expect(approvalSweepMs({ [APPROVAL_SWEEP_MS_ENV]: "200" })).toBe(200);
    for (const value of ["abc", "9", "-5", "1.5", "2147483648"]) {
      expect(() => approvalSweepMs({ [APPROVAL_SWEEP_MS_ENV]: value })).toThrow(expect.objectContaining({ code: "input_validation", message: expect.stringContaining("STEAMHARNESS_APPROVAL_SWEEP_MS") }));
    }
  });

  it("GOV-3 two host processes sweeping one PostgreSQL store: a request nobody asks about again is escalated once, its webhook retried after a 500 and HMAC-signed, and the audit chain records one escalation", async () => {
    const schema = database.freshSchema();
    const store = await createPostgresApprovalStore({ connectionString: database.url, schema });
    cleanups.push(() => store.close());
    const { url, posts } = await receiver([500, 204]);
    const policy = policyOf(1_500);
    const permissions = createGovernedToolPermissions({ policy, store, clock: { now: () => Date.now() } });
    expect(await permissions.request(call("approval:timer"))).toEqual({ outcome: "pending" });
    const host = bundledFixture(HOST);
    const hosts: ChildProcess[] = [0, 1].map(() =>
      spawn(process.execPath, [host], { env: { ...process.env, SWEEP_POSTGRES: database.url, SWEEP_SCHEMA: schema, SWEEP_WEBHOOK: url, SWEEP_SECRET: SECRET, SWEEP_POLICY: JSON.stringify(policy) }, stdio: ["pipe", "pipe", "inherit"] }),
    );
    const exited = hosts.map((child) => new Promise<number | null>((resolve) => child.on("exit", resolve)));
    cleanups.push(async () => {
      for (const child of hosts) if (child.exitCode === null) child.kill("SIGKILL");
    });
    await Promise.all(hosts.map((child) => new Promise((resolve) => child.stdout!.once("data", resolve))));
    await until(() => posts.some((post) => post.status === 204), "the escalation webhook");
    // Several more sweeps of both hosts: nothing more is delivered or recorded.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const child of hosts) child.stdin!.end();
    // Stopped and closed, each host ends by itself: no timer or connection keeps it alive.
    expect(await Promise.all(exited)).toEqual([0, 0]);
    expect(posts.map((post) => post.status)).toEqual([500, 204]);
    expect(new Set(posts.map((post) => post.delivery)).size).toBe(1);
    for (const post of posts) expect(post.signature).toBe(webhookSignature(SECRET, post.timestamp, post.body));
    expect(JSON.parse(posts[0]!.body)).toMatchObject({ type: "approval.escalated", group: "security", request: { id: "approval:timer", tenant: "key:acme" } });
    const chain = await store.audit("key:acme");
    expect(chain.map((entry) => entry.kind)).toEqual(["request", "escalation"]);
    expect(chain[1]!.data).toMatchObject({ to: "security", delivered: true });
    expect((await store.request("approval:timer"))?.escalatedAt).not.toBeNull();
  });
});

describe("GOV-3 the CLI hosts' escalation webhook", () => {
  it("GOV-3 `steamharness view --approval-policy … --escalation-webhook <url> --escalation-webhook-secret-file <file>`: the real CLI process's sweep delivers the escalation to a loopback receiver that checks the HMAC, retried after a 500 with one delivery id", async () => {
    const tmp = await tempDir("sh-gov-webhook-");
    cleanups.push(() => cleanup(tmp));
    const directory = join(tmp, "store");
    await createSqliteStorage({ directory }).close();
    const store = createSqliteApprovalStore({ directory });
    cleanups.push(() => store.close());
    const policy = policyOf(1);
    await writeFile(join(tmp, "policy.json"), JSON.stringify(policy));
    await writeFile(join(tmp, "webhook.secret"), `${SECRET}\n`, { mode: 0o600 });
    expect(await createGovernedToolPermissions({ policy, store, clock: { now: () => Date.now() } }).request(call("approval:cli"))).toEqual({ outcome: "pending" });
    const { url, posts } = await receiver([500, 204], SECRET);
    const args = ["view", "--store", directory, "--approval-policy", join(tmp, "policy.json"), "--escalation-webhook", url, "--escalation-webhook-secret-file", join(tmp, "webhook.secret")];
    // The viewer sweeps every 10 s by default (DEFAULT_APPROVAL_SWEEP_MS); this one every 200 ms.
    const view = spawn(process.execPath, [...CLI_SOURCE, ...args], { env: cleanEnv({ HOME: tmp, [APPROVAL_SWEEP_MS_ENV]: "200" }), stdio: ["ignore", "ignore", "inherit"] });
    const exited = new Promise<number | null>((resolve) => view.once("exit", resolve));
    cleanups.push(async () => void (view.exitCode === null && view.kill("SIGKILL")));
    // The viewer's first sweep comes after 200 ms, then two tries.
    await until(async () => (await store.audit("key:acme")).length === 2, "the escalation recorded by the viewer's sweep", 90_000);
    view.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(posts.map((post) => post.status)).toEqual([500, 204]);
    expect(new Set(posts.map((post) => post.delivery)).size).toBe(1);
    expect(JSON.parse(posts[1]!.body)).toMatchObject({ type: "approval.escalated", group: "security", request: { id: "approval:cli", tenant: "key:acme", toolId: "deploy" } });
    expect((await store.audit("key:acme"))[1]).toMatchObject({ kind: "escalation", data: { to: "security", delivered: true } });
  }, 120_000);

  it("GOV-3 the webhook secret never comes from the command line: a webhook without --approval-policy, without a secret file or STEAMHARNESS_ESCALATION_WEBHOOK_SECRET, with a short secret or a secret file alone is a usage error (exit 2) naming the flag", async () => {
    const tmp = await tempDir("sh-gov-webhook-usage-");
    cleanups.push(() => cleanup(tmp));
    await writeFile(join(tmp, "policy.json"), JSON.stringify(policyOf(1)));
    await writeFile(join(tmp, "short.secret"), "too-short\n");
    const hook = ["--escalation-webhook", "http://127.0.0.1:9/hook"];
    const policy = ["--approval-policy", join(tmp, "policy.json")];
    const cases: [string[], Record<string, string>, RegExp][] = [
      [["view", "--store", tmp, ...hook], {}, /--escalation-webhook only applies with --approval-policy/],
      [["view", "--store", tmp, ...policy, ...hook], {}, /needs its HMAC secret: --escalation-webhook-secret-file <file> or STEAMHARNESS_ESCALATION_WEBHOOK_SECRET/],
      [["gateway", tmp, ...policy, ...hook, "--escalation-webhook-secret-file", join(tmp, "short.secret")], {}, /secret must be at least 16 characters/],
      [["view", "--store", tmp, ...policy, ...hook], { STEAMHARNESS_ESCALATION_WEBHOOK_SECRET: "short" }, /secret must be at least 16 characters/],
      [["mcp", tmp, "--escalation-webhook-secret-file", join(tmp, "short.secret")], {}, /--escalation-webhook-secret-file only applies with --escalation-webhook/],
    ];
    for (const [args, env, message] of cases) {
      const result = await runCli(args, { env: cleanEnv({ HOME: tmp, ...env }) });
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(message);
    }
  }, 120_000);
});
