/**
 * Talks to the example assistant (examples/assistant) through `steamharness chat`, with the
 * typed lines scripted on its stdin: remember a note, read the project's configurations through
 * the host bridge (approved at the prompt), then restart and recall the note from the durable
 * conversation. Offline unless OPENAI_API_KEY is set.
 *
 *   node --import tsx examples/talk-to-assistant.ts
 *   npx steamharness chat examples/assistant          # the same, interactively
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The installed package's `steamharness` bin (in this repository: the build in dist/). */
function steamharnessBin(): string {
  const manifest = createRequire(import.meta.url).resolve("steamharness/package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: { steamharness: string } };
  return join(dirname(manifest), bin.steamharness);
}

/** One `steamharness chat` process; the lines are what a person would type. */
async function chat(lines: string[], dataDir: string, conversationId: string, fresh = false): Promise<string> {
  const projectDir = fileURLToPath(new URL("./assistant", import.meta.url));
  const result = spawnSync(process.execPath, [steamharnessBin(), "chat", projectDir, "--data-dir", dataDir, "--conversation", conversationId, ...(fresh ? ["--new"] : [])], {
    input: lines.map((line) => `${line}\n`).join(""),
    encoding: "utf8",
    timeout: 60_000,
  });
  process.stdout.write(result.stdout);
  if (result.status !== 0) throw new Error(`steamharness chat exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

const dataDir = mkdtempSync(join(tmpdir(), "steamharness-assistant-"));
// The conversation is kept in the project (examples/assistant/.workflow/agents): a new one each time this runs.
const conversationId = `example-${randomUUID()}`;
try {
  const first = await chat(["hello", "remember buy milk", "show my configurations", "y", "/exit"], dataDir, conversationId, true);
  const second = await chat(["recall"], dataDir, conversationId);
  if (!process.env.OPENAI_API_KEY) {
    if (!first.includes("⏺ workflow-kv_kv_store") || !first.includes("This project has no configurations yet.") || !second.includes("You asked me to remember: buy milk")) {
      throw new Error("the offline assistant did not remember the note across the restart");
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
