import { writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { OutputItem, OutputItemStreamChunk } from "../../src/domain/output-items.js";
import { createOutputStreamAccumulator } from "../../src/domain/output-stream.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

export const tempDir = (prefix = "host-test-") => tempDirRemovedAfterAll(prefix);

let counter = 0;
export const conversation = (label: string) => `${label}-${process.pid}-${Date.now()}-${counter++}`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A tool that writes `<dir>/<name>.started` (with a count), then waits until `<dir>/<name>.release`
 * exists or its signal aborts. Lets a test hold a task "in the middle" deterministically.
 */
export function gateTool(dir: string, name = "slow_step", replay: "safe" | "never" = "safe"): AgentTool & { runs: number; finished: number } {
  const tool = {
    name,
    label: name,
    description: "A step that takes a while",
    parameters: Type.Object({ step: Type.String() }),
    replay,
    runs: 0,
    finished: 0,
    async execute(_id: string, params: unknown, signal?: AbortSignal) {
      tool.runs++;
      writeFileSync(path.join(dir, `${name}.started`), String(tool.runs));
      while (!existsSync(path.join(dir, `${name}.release`))) {
        if (signal?.aborted) throw new Error("aborted");
        await pause(10);
      }
      tool.finished++;
      return { content: [{ type: "text" as const, text: `step ${(params as { step: string }).step} done` }] };
    },
  };
  return tool;
}

export async function waitForFile(file: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`);
    await pause(10);
  }
}

export function collect(): { chunks: OutputItemStreamChunk[]; listener: (chunk: OutputItemStreamChunk) => void; items: () => OutputItem[] } {
  const chunks: OutputItemStreamChunk[] = [];
  return {
    chunks,
    listener: (chunk) => chunks.push(chunk),
    items() {
      const accumulator = createOutputStreamAccumulator();
      accumulator.pushAll(chunks);
      return accumulator.items();
    },
  };
}
