// DX-8: `--help` reads the same on every subcommand — the real CLI asked for the help of each
// command the program registers (found by walking it, so a new subcommand is covered too).
import { describe, expect, it } from "@jest/globals";
import type { Command } from "commander";
import { createProgram } from "../../src/compose/cli.js";
import { HELP_PAGES, helpPageText } from "../../src/adapters/driving/cli/help-pages.js";
import { runCli } from "./helpers.js";
import { createSurfaceServices } from "../../src/compose/surface-services.js";

/** Every command path below the program: `[]`, `["run"]`, `["config", "show"]`, … */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return [prefix, ...command.commands.flatMap((sub) => commandPaths(sub, [...prefix, sub.name()]))];
}

/** The entries of a help section (`Options:`, `Arguments:`), each with its wrapped lines joined. */
function entries(help: string, heading: string): string[] {
  const lines = help.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") break;
    if (/^ {2}\S/.test(line)) out.push(line.trim());
    else out[out.length - 1] += ` ${line.trim()}`;
  }
  return out;
}

describe("DX-8 help texts are consistent across subcommands", () => {
  const paths = commandPaths(createProgram(createSurfaceServices()));

  it("DX-8 DX-18 every command's --help: a sentence-case description, one default per option in one style, its own examples and exit codes", async () => {
    expect(paths.map((path) => path.join(" "))).toEqual(expect.arrayContaining(["run", "mcp", "chat", "gateway", "view", "init", "config", "config show", "config export", "config import"]));
    // DX-18: one page per command, none left over from a removed one.
    expect(Object.keys(HELP_PAGES).sort()).toEqual(paths.map((path) => path.join(" ")).sort());
    const problems: string[] = [];
    // Three at a time: each is a CLI process.
    for (let i = 0; i < paths.length; i += 3) {
      await Promise.all(
        paths.slice(i, i + 3).map(async (path) => {
          const name = ["steamharness", ...path].join(" ");
          const { code, stdout } = await runCli([...path, "--help"]);
          if (code !== 0) problems.push(`${name}: exit ${code}`);
          const page = HELP_PAGES[path.join(" ")];
          if (!page || !stdout.trimEnd().endsWith(helpPageText(page))) problems.push(`${name}: its examples and exit codes are not at the end`);
          // DX-18: at least one example, runnable as written (npx steamharness …), and the codes it can return.
          if (!page?.examples.some((example) => /(^|\s)npx steamharness /.test(example))) problems.push(`${name}: no npx steamharness example`);
          for (const example of page?.examples ?? []) if (/(^|[\s(])steamharness /.test(example.replace(/npx steamharness /g, ""))) problems.push(`${name}: a bare steamharness in ${example}`);
          if (page?.exits[0] === undefined || Object.keys(page.exits).length < 2) problems.push(`${name}: lists fewer than two exit codes`);
          // The description paragraph follows the usage line and a blank line.
          const description = stdout.split("\n")[2] ?? "";
          if (!/^[A-Z]/.test(description)) problems.push(`${name}: description not in sentence case: ${description}`);
          for (const command of entries(stdout, "Commands:")) {
            const text = command.split(/ {2,}/)[1] ?? "";
            if (!/^[A-Z]/.test(text)) problems.push(`${name}: command description not in sentence case: ${command}`);
          }
          for (const entry of [...entries(stdout, "Options:"), ...entries(stdout, "Arguments:")]) {
            if (/default:/i.test(entry)) problems.push(`${name}: a default in commander's style: ${entry}`);
            if ((entry.match(/\bdefault\b/gi) ?? []).length > 1) problems.push(`${name}: a default printed twice: ${entry}`);
          }
        }),
      );
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it("DX-8 DX-18 config's help describes its subcommands with examples; chat's help lists the prompt commands", async () => {
    const config = await runCli(["config", "--help"]);
    expect(config.stdout).toMatch(/show \[options\] <project-dir> +Print the project's configurations/);
    expect(config.stdout).toContain("Examples:\n  npx steamharness config show examples/assistant");
    expect(config.stdout).toContain("steamharness config import examples/assistant config.json");
    const chat = await runCli(["chat", "--help"]);
    expect(chat.stdout).toContain("At the prompt:\n  /help lists these commands\n  /compact [instructions] compacts the conversation\n  /exit ends the chat\n");
    expect(chat.stdout).toContain("apiKeyRef names");
  }, 60_000);
});
