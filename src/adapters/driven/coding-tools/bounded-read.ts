import type { FileHandle } from "node:fs/promises";
import { refused } from "./confined-fs.js";

const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

/** One page of a file's lines, as read by {@link readLinePage}. */
export interface LinePage {
  /** Lines `offset..lastLine` joined by `\n` (a final line may be cut at the byte cap). */
  text: string;
  /** The number of the last line shown (the first line is 1). */
  lastLine: number;
  /** Whether the file goes on after the page (more lines, or the rest of a cut line). */
  more: boolean;
  /** Whether the last line shown was cut at `maxBytes`. */
  cut: boolean;
}

/** The longest prefix of `bytes` of at most `max` bytes that does not split a UTF-8 sequence. */
function utf8Prefix(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/**
 * Reads lines `offset .. offset+limit-1` (1-based, split on `\n` like `String.split`) and at most
 * `maxBytes` of them, streaming the file in 256 KB chunks: it reads up to the end of the page and
 * stops, so memory stays at one chunk plus the page whatever the file's size (SEC-2).
 *
 * @example
 * const page = await readLinePage(handle, 1, 2000, 256 * 1024);
 */
export async function readLinePage(handle: FileHandle, offset: number, limit: number, maxBytes: number): Promise<LinePage> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const parts: Buffer[] = [];
  let collected = 0;
  let line = 1;
  let left = limit;
  let position = 0;
  const take = (view: Buffer, from: number, to: number) => {
    parts.push(Buffer.from(view.subarray(from, to)));
    collected += to - from;
  };
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const view = chunk.subarray(0, bytesRead);
    let start = 0;
    while (start < bytesRead) {
      const newline = view.indexOf(NEWLINE, start);
      if (line < offset) {
        if (newline < 0) break;
        line++;
        start = newline + 1;
        continue;
      }
      if (newline < 0) {
        take(view, start, bytesRead);
        start = bytesRead;
      } else if (left === 1) {
        take(view, start, newline);
        return page(parts, collected, maxBytes, line, true);
      } else {
        take(view, start, newline + 1);
        line++;
        left--;
        start = newline + 1;
      }
      if (collected > maxBytes) return page(parts, collected, maxBytes, line, true);
    }
  }
  return page(parts, collected, maxBytes, line < offset ? offset - 1 : line, false);
}

function page(parts: Buffer[], collected: number, maxBytes: number, lastLine: number, more: boolean): LinePage {
  const bytes = Buffer.concat(parts, collected);
  const kept = utf8Prefix(bytes, maxBytes);
  return { text: kept.toString("utf8"), lastLine, more, cut: kept.length < bytes.length };
}

/**
 * The whole content of an open regular file, refused with `input_validation` when it is (or grows
 * while being read to) more than `maxBytes`: the file is never read past the cap (SEC-2).
 */
export async function readWholeBounded(handle: FileHandle, size: number, maxBytes: number, shown: string): Promise<Buffer> {
  const tooLarge = () => refused(`${shown} is larger than ${maxBytes} bytes, the limit of this tool`, "too_large");
  if (size > maxBytes) throw tooLarge();
  let buffer = Buffer.alloc(size + 1);
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      // The file grew after fstat: read on in a larger buffer, never past the cap.
      if (filled > maxBytes) throw tooLarge();
      const larger = Buffer.alloc(Math.min(maxBytes + 1, buffer.length * 2));
      buffer.copy(larger);
      buffer = larger;
    }
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) return buffer.subarray(0, filled);
    filled += bytesRead;
  }
}
