/**
 * Talks to the example assistant (examples/assistant) the way `steamharness chat` does, with the
 * typed lines scripted: remember a note, read the project's configurations through the host
 * bridge (approved at the prompt), then restart and recall the note from the durable conversation. Offline unless OPENAI_API_KEY is set.
 *
 *   node --import tsx examples/talk-to-assistant.ts
 *   npx steamharness chat examples/assistant          # the same, interactively
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { runChat } from "../src/adapters/chat/chat-session.js";

async function chat(lines: string[], dataDir: string, conversationId: string): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let transcript = "";
  output.on("data", (chunk: Buffer) => {
    transcript += chunk.toString();
    process.stdout.write(chunk);
  });
  input.end(lines.map((line) => `${line}\n`).join(""));
  await runChat({ projectDir: "examples/assistant", dataDir, conversationId, input, output });
  return transcript;
}

const dataDir = mkdtempSync(join(tmpdir(), "steamharness-assistant-"));
try {
  const first = await chat(["hello", "remember buy milk", "show my configurations", "y", "/exit"], dataDir, "example-conversation");
  const second = await chat(["recall"], dataDir, "example-conversation");
  if (!process.env.OPENAI_API_KEY) {
    if (!first.includes("⏺ workflow-kv_kv_store") || !first.includes("This project has no configurations yet.") || !second.includes("You asked me to remember: buy milk")) {
      throw new Error("the offline assistant did not remember the note across the restart");
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
