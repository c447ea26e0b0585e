// The coding-tool `read` as it was before SEC-1/SEC-2 (main at f1f6d79, src/adapters/driven/coding-tools/
// file-tools.ts), kept only as the baseline of bench/hardening-read.bench.ts: guard.resolve, stat,
// then the whole file read and split. Do not use it anywhere else: it follows swapped links and
// loads the whole file.
import { readFile, stat } from "node:fs/promises";
import type { PathGuard } from "../src/adapters/driven/coding-tools/path-guard.js";

const MAX_READ_LINES = 2000;
const MAX_READ_BYTES = 256 * 1024;

async function readText(file: string): Promise<string> {
  const info = await stat(file).catch(() => null);
  if (!info) throw new Error(`file not found: ${file}`);
  if (!info.isFile()) throw new Error(`not a regular file: ${file}`);
  return readFile(file, "utf8");
}

/** Today's read tool body: the text it returned for `{ path, offset, limit }`. */
export async function baselineRead(guard: PathGuard, target: string, offset = 1, limit = MAX_READ_LINES): Promise<string> {
  const file = await guard.resolve(target);
  const lines = (await readText(file)).split("\n");
  let text = lines.slice(offset - 1, offset - 1 + Math.min(limit, MAX_READ_LINES)).join("\n");
  let truncated = offset - 1 + limit < lines.length;
  if (text.length > MAX_READ_BYTES) {
    text = text.slice(0, MAX_READ_BYTES);
    truncated = true;
  }
  return truncated ? `${text}\n\n[truncated: ${lines.length} lines in total; continue with offset]` : text;
}
