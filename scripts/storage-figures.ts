/**
 * The storage figures of issue 44 (ARCH-8), computed without any workplace tool so CI can check
 * them: the code lines of the storage adapters and the pairs of files in two different storage
 * folders that repeat a run of lines of the same shape. `scripts/storage-figures.json` holds the
 * committed figures; test/architecture.test.ts fails when either grows past them.
 *
 * Run: `node --import tsx scripts/storage-figures.ts` (prints the figures and the pairs).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** The storage folders, by family. */
export const STORAGE_FAMILIES = ["memory", "sqlite", "postgres", "kernel"] as const;
/** How many lines of the same shape make a pair (the `duplicates` tool's default). */
const RUN = 6;
/** A run found in more places than this is too common to say anything (the `duplicates` tool's limit). */
const TOO_COMMON = 8;

/**
 * Lines that are neither blank nor only comment (`//`, or inside / opening a block comment).
 *
 * @example
 * codeLines("// why\nconst a = 1;\n") // 1
 */
export function codeLines(text: string): number {
  return codeLineTexts(text).length;
}

/** The code lines of `text` with their 1-based line numbers. */
function codeLineTexts(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  let inBlock = false;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes("*/")) inBlock = false;
      return;
    }
    if (line === "" || line.startsWith("//")) return;
    if (line.startsWith("/*")) {
      const end = line.indexOf("*/", 2);
      if (end === -1) inBlock = true;
      else if (line.slice(end + 2).trim() !== "") found.push({ line: index + 1, text: line.slice(end + 2).trim() });
      return;
    }
    found.push({ line: index + 1, text: line });
  });
  return found;
}

/** A line's shape: names, strings and numbers replaced, so two lines alike but for them are equal. */
const shapeOf = (line: string): string =>
  line
    .replace(/(["'`])(?:\\.|(?!\1).)*\1/g, "s")
    .replace(/\b\d+(\.\d+)?\b/g, "0")
    .replace(/[A-Za-z_$][\w$]*/g, "x")
    .replace(/\s+/g, "");

/**
 * Pairs of files in two different top folders of `files` (path → text) that share a run of
 * {@link RUN} code lines of the same shape, one entry per pair of files (`a:10-15 ~ b:40-45`, the
 * first shared run). Runs that stand in more than {@link TOO_COMMON} places, and runs of thin lines
 * (punctuation and keywords only), are left out as boilerplate.
 *
 * @example
 * sameShapePairs(new Map([["sqlite/a.ts", text], ["postgres/b.ts", text]])).length // 1
 */
export function sameShapePairs(files: Map<string, string>): string[] {
  const places = new Map<string, { file: string; from: number; to: number }[]>();
  for (const [file, text] of files) {
    const lines = codeLineTexts(text);
    for (let start = 0; start + RUN <= lines.length; start++) {
      const window = lines.slice(start, start + RUN);
      // Import lists all look alike, and a run of lines that are mostly brackets and keywords says nothing.
      if (window.some((line) => /^(import|export .* from)\b/.test(line.text) || /^[\w\s,{}]*\} from /.test(line.text))) continue;
      if (window.filter((line) => line.text.replace(/[^A-Za-z0-9]/g, "").length >= 8).length < RUN / 2) continue;
      const key = window.map((line) => shapeOf(line.text)).join("\n");
      const list = places.get(key) ?? [];
      list.push({ file, from: window[0]!.line, to: window[RUN - 1]!.line });
      places.set(key, list);
    }
  }
  const folder = (file: string): string => file.split("/")[0]!;
  const pairs = new Map<string, string>();
  for (const list of places.values()) {
    if (list.length < 2 || list.length > TOO_COMMON) continue;
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        const [a, b] = [list[i]!, list[j]!].sort((x, y) => x.file.localeCompare(y.file));
        if (folder(a.file) === folder(b.file)) continue;
        const id = `${a.file} ~ ${b.file}`;
        if (!pairs.has(id)) pairs.set(id, `${a.file}:${a.from}-${a.to} ~ ${b.file}:${b.from}-${b.to}`);
      }
  }
  return [...pairs.values()].sort();
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** The storage figures of one tree. */
export interface StorageFigures {
  /** Code lines per storage folder. */
  lines: Record<string, number>;
  /** All storage code lines. */
  totalLines: number;
  /** The same-shape pairs between two storage folders (see {@link sameShapePairs}). */
  pairs: string[];
}

/**
 * The storage figures of the tree at `root`: code lines of every `.ts` file under
 * src/adapters/driven/{memory,sqlite,postgres,kernel} and the same-shape pairs between them.
 *
 * @example
 * const { totalLines, pairs } = storageFigures(".");
 */
export function storageFigures(root: string): StorageFigures {
  const files = new Map<string, string>();
  for (const family of STORAGE_FAMILIES) {
    const dir = join(root, "src/adapters/driven", family);
    for (const file of filesUnder(dir)) files.set(`${family}/${relative(dir, file)}`, readFileSync(file, "utf8"));
  }
  const lines = Object.fromEntries(STORAGE_FAMILIES.map((family) => [family, 0]));
  for (const [file, text] of files) lines[file.split("/")[0]!] += codeLines(text);
  return { lines, totalLines: Object.values(lines).reduce((a, b) => a + b, 0), pairs: sameShapePairs(files) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = storageFigures(".");
  console.log(JSON.stringify({ lines: figures.lines, totalLines: figures.totalLines, pairs: figures.pairs.length }, null, 2));
  for (const pair of figures.pairs) console.log(pair);
}
