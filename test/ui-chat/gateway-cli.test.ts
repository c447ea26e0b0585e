import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { CLI_SOURCE, cleanEnv, REPO } from "../cli/helpers.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { TOKEN } from "./helpers.js";

describe("UI-1 steamharness gateway serves the chat route", () => {
  it("UI-1 `steamharness gateway <project>` mounts POST /v1/ui/chat, GET /v1/ui/chat/{id}/stream and stop, with its token", async () => {
    const dir = tempDirRemovedAfterAll("ui-chat-cli-");
    const child = spawn(process.execPath, [...CLI_SOURCE, "gateway", join(REPO, "examples/assistant"), "--port", "0", "--data-dir", join(dir, "data"), "--agent-store-dir", join(dir, "agents")], {
      cwd: REPO,
      env: cleanEnv({ STEAMHARNESS_GATEWAY_TOKEN: TOKEN }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = "";
        child.stderr!.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stderr);
          if (found && stderr.includes("token: ")) resolve(found[1]!);
        });
        child.once("exit", (code) => reject(new Error(`gateway exited (${code}): ${stderr}`)));
      });
      const auth = { authorization: `Bearer ${TOKEN}` };
      const posted = await fetch(`${url}/ui/chat`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ id: "c1", messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Hello" }] }] }) });
      expect(posted.status).toBe(200);
      expect(posted.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
      const body = await posted.text();
      // `start` carries its cursor: the position just before the chunks of the turn's first event.
      expect(body).toMatch(/^id: \d+-start\ndata: \{"type":"start","messageId":"msg-run-ui\.m1"\}/);
      expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true);
      expect((await fetch(`${url}/ui/chat/c1/stream`, { headers: auth })).status).toBe(204);
      expect((await fetch(`${url}/ui/chat/c2/stream`, { headers: auth })).status).toBe(404);
      expect((await fetch(`${url}/ui/chat/c1/stop`, { method: "POST", headers: auth })).status).toBe(200);
      expect((await fetch(`${url}/ui/chat/c1/stream`)).status).toBe(401);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);
});
