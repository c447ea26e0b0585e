/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { createViewerServer } from "../../src/compose/viewer.js";
import { viewerSessionId } from "../../src/adapters/driving/viewer/viewer-sessions.js";
import { planRequestId } from "../../src/domain/agent/ids.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { buildViewerAssets } from "../../ui/build.js";
import { launchChromium } from "./browser.js";
import { CONVERSATION, decisionsFor, openStorage, PLAN_STEPS, PROJECT, runAgent } from "./fixtures.js";

let storage: SqliteStorage;
let viewer: ViewerServer;
const s = viewerSessionId({ projectId: PROJECT, conversationId: CONVERSATION, sessionKey: "agent" });
const requestId = planRequestId("run-plan", 0);
const answer = JSON.stringify({ s, runId: "run-plan", requestId, outcome: "approved" });

/** A raw request (node:http lets a test set Host, Origin and Sec-Fetch-Site as a browser or an attacker would). */
function raw(options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: viewer.port, method: options.method ?? "GET", path: options.path, headers: { host: `127.0.0.1:${viewer.port}`, ...options.headers } }, (res) => {
      let body = "";
      res.on("data", (part) => (body += part));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

beforeAll(async () => {
  const assets = tempDirRemovedAfterAll("viewer-assets-");
  await buildViewerAssets(assets);
  storage = openStorage(tempDirRemovedAfterAll("viewer-security-"));
  expect((await runAgent(storage, { runId: "run-plan", prompt: "Prepare the release", steps: PLAN_STEPS, mode: "plan" })).status).toBe("paused");
  viewer = await createViewerServer({ storage, assetsDirectory: assets });
}, 120_000);

afterAll(async () => {
  await viewer?.close();
  await storage?.close();
});

describe("VIEW-4 viewer security", () => {
  it("VIEW-4 binds 127.0.0.1 and puts a random token in the URL", async () => {
    expect(new URL(viewer.url).hostname).toBe("127.0.0.1");
    expect(viewer.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new URL(viewer.url).searchParams.get("token")).toBe(viewer.token);
  });

  it("VIEW-4 requests without the token (or with a wrong one) get 401", async () => {
    for (const path of ["/", "/api/projects", `/api/session?s=${s}`, `/api/events?s=${s}&after=0`, `/api/stream?s=${s}`, "/api/projects?token=wrong"]) {
      expect({ path, status: (await raw({ path })).status }).toEqual({ path, status: 401 });
    }
    expect((await raw({ path: `/api/projects?token=${viewer.token}` })).status).toBe(200);
    expect((await raw({ path: "/api/projects", headers: { "x-steamharness-token": viewer.token } })).status).toBe(200);
  });

  it("VIEW-4 a Host other than 127.0.0.1 or localhost (DNS rebinding) is refused", async () => {
    for (const host of ["evil.example", `evil.example:${viewer.port}`, `127.0.0.1.nip.io:${viewer.port}`, "127.0.0.1:1"]) {
      expect({ host, status: (await raw({ path: `/?token=${viewer.token}`, headers: { host } })).status }).toEqual({ host, status: 403 });
    }
    expect((await raw({ path: `/?token=${viewer.token}`, headers: { host: `localhost:${viewer.port}` } })).status).toBe(200);
  });

  it("VIEW-4 the page forbids framing and runs only its own inline script", async () => {
    const page = await new Promise<{ headers: Record<string, unknown> }>((resolve) => httpRequest({ host: "127.0.0.1", port: viewer.port, path: `/?token=${viewer.token}` }, (res) => (res.resume(), resolve({ headers: res.headers }))).end());
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(String(page.headers["content-security-policy"])).toMatch(/frame-ancestors 'none'/);
    expect(String(page.headers["content-security-policy"])).toMatch(/script-src 'sha256-[^']+'/);
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
  });

  it("VIEW-4 cross-site writes are refused; the decision is not recorded", async () => {
    const json = { "content-type": "application/json" };
    const token = { "x-steamharness-token": viewer.token };
    const cases: Array<[string, Record<string, string>, number]> = [
      ["token only in the query", json, 401],
      ["cross-site fetch metadata", { ...json, ...token, "sec-fetch-site": "cross-site" }, 403],
      ["same-site (another port) metadata", { ...json, ...token, "sec-fetch-site": "same-site" }, 403],
      ["foreign Origin", { ...json, ...token, origin: "http://evil.example" }, 403],
      ["another local port as Origin", { ...json, ...token, origin: "http://127.0.0.1:1" }, 403],
      ["form-encoded body", { "content-type": "application/x-www-form-urlencoded", ...token }, 415],
    ];
    for (const [name, headers, status] of cases) {
      const response = await raw({ method: "POST", path: `/api/answer?token=${viewer.token}`, headers, body: answer });
      expect({ name, status: response.status }).toEqual({ name, status });
    }
    expect(await decisionsFor(storage).get(requestId)).toBeNull();
  });

  it("VIEW-4 a page on another origin cannot post an answer from a real browser (CORS preflight fails, simple POSTs lack the token header)", async () => {
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>attacker</title>");
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    const { browser, close } = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      // Even knowing the token (it is in the victim's URL, not the attacker's), both tries fail.
      const outcome = await page.evaluate(async ({ port, token, body }) => {
        const results: string[] = [];
        try {
          const r = await fetch(`http://127.0.0.1:${port}/api/answer`, { method: "POST", headers: { "content-type": "application/json", "x-steamharness-token": token }, body });
          results.push(`header:${r.status}`);
        } catch {
          results.push("header:blocked");
        }
        try {
          await fetch(`http://127.0.0.1:${port}/api/answer?token=${token}`, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body });
          results.push("simple:sent");
        } catch {
          results.push("simple:blocked");
        }
        return results;
      }, { port: viewer.port, token: viewer.token, body: answer });
      expect(outcome[0]).toBe("header:blocked");
      expect(await decisionsFor(storage).get(requestId)).toBeNull();
    } finally {
      await close();
      await new Promise<void>((resolve) => attacker.close(() => resolve()));
    }
  }, 60_000);

  it("VIEW-4 a same-origin POST with the token header records the answer", async () => {
    const response = await raw({ method: "POST", path: "/api/answer", headers: { "content-type": "application/json", "x-steamharness-token": viewer.token, origin: `http://127.0.0.1:${viewer.port}`, "sec-fetch-site": "same-origin" }, body: answer });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ recorded: true, resumed: "rerun" });
    expect(await decisionsFor(storage).get(requestId)).toEqual({ kind: "plan", response: { outcome: "answered", values: { approved: true }, answeredBy: { surface: "viewer", at: expect.any(Number) } } });
    // A different decision for the same request id never replaces the first.
    await expect(decisionsFor(storage).record(requestId, { kind: "plan", response: { outcome: "declined" } })).rejects.toMatchObject({ code: "conflict" });
  });
});
