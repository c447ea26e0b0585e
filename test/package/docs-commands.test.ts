/**
 * DX-18: the commands in README.md and docs/*.md are runnable as written, and their synopses are
 * the CLI's own. Shell blocks name the CLI as `npx steamharness …` (a bare `steamharness` is
 * "command not found" outside a global install); every synopsis (`text` block starting with
 * `steamharness …` or `Usage: steamharness …`) carries `<!-- docs-test: help <command> -->` and
 * reads exactly as a part of that command's `--help`; the user docs quote no source document
 * (Chinese text stays in docs/requirements.md and in code spans that show a value).
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { runCli } from "../cli/helpers.js";
import { extractBlocks } from "./docs-blocks/markdown-blocks.js";

const pages = ["README.md", ...readdirSync("docs").filter((name) => name.endsWith(".md") && name !== "requirements.md").map((name) => `docs/${name}`)];
const blocks = pages.flatMap((page) => extractBlocks(page));
const SHELL = new Set(["sh", "bash", "shell"]);
// `steamharness` in command position: line start, after `&&`, `||`, `;`, `|`, `(` or `$(`, past `NAME=value` assignments.
const BARE = /(?:^|&&|\|\||;|\||\$\(|\()\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*steamharness\s/;
const SYNOPSIS = /^\s*(?:Usage: )?steamharness\s/;
const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/;

/** `block` without trailing spaces on its lines, as help and markdown both end lines. */
const lines = (text: string): string => text.split("\n").map((line) => line.trimEnd()).join("\n").trim();

describe("DX-18 docs commands are runnable as written", () => {
  it("DX-18 shell blocks run the CLI as npx steamharness, never a bare steamharness", () => {
    const bare = blocks
      .filter((block) => SHELL.has(block.lang))
      .flatMap((block) => block.code.split("\n").map((line, i) => [`${block.file}:${block.line + 1 + i}`, line] as const))
      .filter(([, line]) => BARE.test(line.replace(/#.*$/, "")))
      .map(([where, line]) => `${where}: ${line.trim()}`);
    expect(bare).toEqual([]);
    // The check itself: a bare command and an assignment before it are caught; npx and paths are not.
    expect(["steamharness run x", "TOKEN=a steamharness gateway x", "cd x && steamharness view"].every((line) => BARE.test(line))).toBe(true);
    expect(["npx steamharness run x", "ls ~/.steamharness", "--schema steamharness  "].some((line) => BARE.test(line))).toBe(false);
  });

  it("DX-18 no source-document quotes in user docs: Chinese text only in docs/requirements.md (or a code span showing a value)", () => {
    const quoted = pages.flatMap((page) =>
      readFileSync(page, "utf8")
        // Fenced blocks become empty lines (line numbers stay); code spans show values, not quotes.
        .replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ""))
        .split("\n")
        .map((line, i) => [`${page}:${i + 1}`, line.replace(/`[^`]*`/g, "")] as const)
        .filter(([, line]) => CJK.test(line))
        .map(([where, line]) => `${where}: ${line.trim()}`),
    );
    expect(quoted).toEqual([]);
  });

  it("DX-18 every synopsis in the docs is checked against the command's --help, and reads as it", async () => {
    const synopses = blocks.filter((block) => block.lang === "text" && SYNOPSIS.test(block.code));
    expect(synopses.filter((block) => block.directives.help === undefined).map((block) => `${block.id}: a synopsis without <!-- docs-test: help <command> -->`)).toEqual([]);
    const checked = blocks.filter((block) => block.directives.help !== undefined);
    expect(checked.length).toBeGreaterThanOrEqual(4);
    const problems: string[] = [];
    for (const block of checked) {
      const { code, stdout } = await runCli([...block.directives.help!.split(/\s+/).filter(Boolean), "--help"]);
      if (code !== 0) problems.push(`${block.id}: steamharness ${block.directives.help} --help exited ${code}`);
      else if (!lines(stdout).includes(lines(block.code))) problems.push(`${block.id}: differs from steamharness ${block.directives.help} --help:\n${block.code}\n--- the help reads:\n${stdout}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
