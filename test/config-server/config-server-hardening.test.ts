// TEN-7: the configuration server against a real `steamharness server` process — the Host check
// (DNS rebinding), the JSON depth limit (400), an oversized body answered with a 413 the client
// receives, failed authentications limited per address without locking out a valid token — and
// `login` refusing to send a token over plain http off this machine.
import { request as httpRequest } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { cleanEnv, runCli } from "../cli/helpers.js";
import { ADMIN_KEY, createAccount, request, startServerProcess, type ServerProcess, useServerInTempDir } from "./server-process.js";

const admin = { authorization: `Bearer ${ADMIN_KEY}` };

/** A raw request with the headers given (fetch will not send another Host). */
function raw(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(`${url}${path}`, { headers }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
    });
    sent.on("error", reject).end();
  });
}

describe("TEN-7 configuration server hardening", () => {
  let dir = "";
  let server: ServerProcess;
  useServerInTempDir("sh-cfg-hardening-", (started) => ({ dir, server } = started));

  it("TEN-7: a Host or Origin the server does not serve is refused with 403 before authentication (DNS rebinding)", async () => {
    const port = new URL(server.url).port;
    const rebound = await raw(server.url, "/v1/accounts", { ...admin, host: `attacker.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error.code).toBe("forbidden");
    expect(rebound.body.error.message).toContain("--allowed-host");
    expect((await raw(server.url, "/healthz", { host: `attacker.example:${port}` })).status).toBe(403);
    expect((await raw(server.url, "/v1/accounts", { ...admin, host: `127.0.0.1:${port}`, origin: "https://attacker.example" })).status).toBe(403);
    expect((await raw(server.url, "/v1/accounts", { ...admin, host: `localhost:${port}` })).status).toBe(200);
    expect((await raw(server.url, "/v1/accounts", { ...admin, host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it("TEN-7: JSON nested deeper than 128 levels is a 400 with a JSON error, not a 503", async () => {
    const { token } = await createAccount(server.url, "deep-json");
    const auth = { authorization: `Bearer ${token}` };
    // A configuration value nested 5000 deep once reached the store and came back as 503 "storage unavailable".
    const deep = `{"configurationId":"c1","name":"Deep","values":{"K":${"[".repeat(5000)}${"]".repeat(5000)}}}`;
    const answer = await request(server.url, "POST", "/v1/projects/p1/configurations", auth, deep);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "input_validation", field: "body" });
    expect(answer.body.error.message).toContain("nested more than 128");
    // The server still answers, and nothing was written.
    expect(await request(server.url, "GET", "/v1/projects/p1/configurations/c1", auth)).toEqual({ status: 200, body: { configuration: null } });
  });

  it("TEN-7: a body over the limit gets a 413 that fetch receives, declared or streamed", async () => {
    const big = JSON.stringify({ name: "x".repeat(9 * 1024 * 1024) });
    const declared = await fetch(`${server.url}/v1/accounts`, { method: "POST", headers: { ...admin, "content-type": "application/json" }, body: big });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error).toMatchObject({ code: "input_validation", field: "body" });
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 10) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/v1/accounts`, { method: "POST", headers: { ...admin, "content-type": "application/json" }, body: stream, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).error.code).toBe("input_validation");
    // Unauthenticated with a big body: the 401 is received too (the body is drained first).
    const anonymous = await fetch(`${server.url}/v1/projects/p`, { method: "PUT", headers: { "content-type": "application/json" }, body: big });
    expect(anonymous.status).toBe(401);
  }, 60_000);

  it("TEN-7: `login` and `rotate-token` refuse a plain http:// server off loopback (exit 2, one line) unless --insecure", async () => {
    const authDir = join(dir, "auth-login");
    const refused = await runCli(["login", "--server", "http://config.example.com:8790", "--token", "sht_whatever", "--auth-dir", authDir], { env: cleanEnv() });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("refusing to send the account token over plain http to config.example.com:8790");
    expect(refused.stderr).not.toContain("sht_whatever");
    // 0.0.0.0 is not a loopback name, yet reaches this machine: a server that allows it as a Host.
    const account = await createAccount(server.url, "insecure-login");
    const other = await startServerProcess(["--sqlite", join(dir, "server.sqlite"), "--allowed-host", "0.0.0.0"]);
    try {
      const port = new URL(other.url).port;
      const warned = await runCli(["login", "--server", `http://0.0.0.0:${port}`, "--token", account.token, "--auth-dir", authDir, "--insecure"], { env: cleanEnv() });
      expect(warned.code).toBe(0);
      expect(warned.stderr).toContain("warning: the account token travels unencrypted to 0.0.0.0");
      expect(warned.stdout).toContain("as insecure-login");
      // The saved login's consent is not carried to rotate-token: it refuses without its own flag.
      const notRotated = await runCli(["rotate-token", "--auth-dir", authDir], { env: cleanEnv() });
      expect(notRotated.code).toBe(2);
      expect(notRotated.stderr).toContain("refusing to send the account token over plain http to 0.0.0.0");
      expect((await request(server.url, "GET", "/v1/account", { authorization: `Bearer ${account.token}` })).status).toBe(200);
      const rotated = await runCli(["rotate-token", "--auth-dir", authDir, "--insecure"], { env: cleanEnv() });
      expect(rotated.code).toBe(0);
      expect(rotated.stderr).toContain("warning: the account token travels unencrypted to 0.0.0.0");
      expect((await request(server.url, "GET", "/v1/account", { authorization: `Bearer ${account.token}` })).status).toBe(401);
      // Loopback needs no flag.
      const { token: rotatedToken } = JSON.parse(readFileSync(join(authDir, "workflow-auth.json"), "utf8")) as { token: string };
      const local = await runCli(["login", "--server", other.url, "--token", rotatedToken, "--auth-dir", authDir], { env: cleanEnv() });
      expect(local.code).toBe(0);
      expect(local.stderr).toBe("");
    } finally {
      await other.stop();
    }
  }, 120_000);

  // Last: it uses up this address's failed-authentication budget on this server.
  it("TEN-7: failed authentications are limited per address (429 + Retry-After), and a valid token is still served", async () => {
    const account = await createAccount(server.url, "not-locked-out");
    // 30 failures a minute per address (earlier tests here used a few of them).
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await request(server.url, "GET", "/v1/account", { authorization: `Bearer sht_wrong-${i}` })).status);
    const first = statuses.indexOf(429);
    expect(first).toBeGreaterThan(25);
    expect(statuses.slice(0, first).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(first).every((status) => status === 429)).toBe(true);
    const limited = await fetch(`${server.url}/v1/account`, { headers: { authorization: "Bearer sht_wrong" } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await limited.json()).error.code).toBe("rate_limited");
    expect((await request(server.url, "GET", "/v1/account", {})).status).toBe(429);
    // The valid token and the admin key are checked before the limit: still served.
    const mine = await request(server.url, "GET", "/v1/account", { authorization: `Bearer ${account.token}` });
    expect(mine.status).toBe(200);
    expect(mine.body.account.name).toBe("not-locked-out");
    expect((await request(server.url, "GET", "/v1/accounts", admin)).status).toBe(200);
  });
});
