import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "@jest/globals";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createEscalationWebhook, webhookSignature } from "../../src/adapters/driven/system/escalation-webhook.js";
import { createGovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import type { ApprovalPolicy } from "../../src/domain/approvals/policy.js";

const SECRET = "a-shared-secret-of-32-characters";
const policy: ApprovalPolicy = { approverGroups: { sre: [{ subject: "alice" }], security: [{ subject: "sec" }] }, approvers: "sre", escalation: { afterMs: 900_000, to: "security" }, rules: [] };
const call = { requestId: "approval:1", runId: "run-1", toolId: "deploy", arguments: { env: "prod" }, requestedBy: { tenant: "key:acme", subject: "carol" } };

interface Received { delivery: string; timestamp: string; signature: string; body: string }
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback receiver answering each POST with the next status of `statuses` (the last one repeats). */
async function receiver(statuses: number[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    received.push({ delivery: String(request.headers["x-steamharness-delivery"]), timestamp: String(request.headers["x-steamharness-timestamp"]), signature: String(request.headers["x-steamharness-signature"]), body });
    response.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
    response.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/approvals`, received };
}

describe("GOV-3 escalation webhook", () => {
  it("GOV-3 after the escalation wait the escalation is posted to the webhook, HMAC-signed, retried after failures with one delivery id", async () => {
    const { url, received } = await receiver([503, 500, 204]);
    const clock = createFixedClock(Date.UTC(2026, 11, 2, 12));
    const store = createMemoryApprovalStore();
    const permissions = createGovernedToolPermissions({ policy, store, clock, onEscalation: createEscalationWebhook({ url, secret: SECRET, retryDelayMs: 10 }) });
    await permissions.request(call);
    expect(received).toHaveLength(0);
    clock.advance(900_000);
    expect(await permissions.request(call)).toEqual({ outcome: "pending" });
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.delivery)).size).toBe(1);
    for (const each of received) expect(each.signature).toBe(webhookSignature(SECRET, each.timestamp, each.body));
    expect(received[0]!.signature).not.toBe(webhookSignature("another-secret-of-32-characters!", received[0]!.timestamp, received[0]!.body));
    expect(JSON.parse(received[0]!.body)).toMatchObject({ type: "approval.escalated", group: "security", request: { id: "approval:1", tenant: "key:acme", toolId: "deploy" } });
    expect((await store.audit("key:acme")).map((entry) => [entry.kind, entry.data.delivered ?? null])).toEqual([["request", null], ["escalation", true]]);
    // Escalated once: asking again posts nothing more, and the escalation group may now decide.
    await permissions.request(call);
    expect(received).toHaveLength(3);
    await expect(permissions.decide({ requestId: "approval:1", outcome: "approved", approver: { surface: "cli", subject: "sec" } })).resolves.toMatchObject({ outcome: "approved" });
  });

  it("GOV-3 a webhook that keeps failing is recorded as an undelivered escalation; a 4xx is not retried", async () => {
    const { url, received } = await receiver([400]);
    const clock = createFixedClock(Date.UTC(2026, 11, 2, 12));
    const store = createMemoryApprovalStore();
    const permissions = createGovernedToolPermissions({ policy, store, clock, onEscalation: createEscalationWebhook({ url, secret: SECRET, retryDelayMs: 10 }) });
    await permissions.request(call);
    clock.advance(900_000);
    expect(await permissions.request(call)).toEqual({ outcome: "pending" });
    expect(received).toHaveLength(1);
    expect((await store.audit("key:acme"))[1]).toMatchObject({ kind: "escalation", data: { delivered: false, error: expect.stringContaining("HTTP 400") } });
    expect(() => createEscalationWebhook({ url: "ftp://x", secret: SECRET })).toThrow(expect.objectContaining({ code: "input_validation", field: "url" }));
    expect(() => createEscalationWebhook({ url, secret: "short" })).toThrow(expect.objectContaining({ code: "input_validation", field: "secret" }));
  });
});
