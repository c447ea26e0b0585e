// DX-8: `--help` reads the same on every subcommand — the real CLI asked for the help of each
// command the program registers (found by walking it, so a new subcommand is covered too).
import { describe, expect, it } from "@jest/globals";
import type { Command } from "commander";
import { createProgram } from "../../src/compose/cli.js";
import { EXIT_CODES_HELP } from "../../src/adapters/driving/shared/exit-codes.js";
import { runCli } from "./helpers.js";

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
  const paths = commandPaths(createProgram());

  it("DX-8 every command's --help: a sentence-case description, one default per option in one style, the exit-code table", async () => {
    expect(paths.map((path) => path.join(" "))).toEqual(expect.arrayContaining(["run", "mcp", "chat", "gateway", "view", "init", "config", "config show", "config export", "config import"]));
    const problems: string[] = [];
    // Three at a time: each is a CLI process.
    for (let i = 0; i < paths.length; i += 3) {
      await Promise.all(
        paths.slice(i, i + 3).map(async (path) => {
          const name = ["steamharness", ...path].join(" ");
          const { code, stdout } = await runCli([...path, "--help"]);
          if (code !== 0) problems.push(`${name}: exit ${code}`);
          if (!stdout.trimEnd().endsWith(EXIT_CODES_HELP)) problems.push(`${name}: no exit-code table at the end`);
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

  it("DX-8 config's help describes its subcommands with examples; chat's help lists the prompt commands", async () => {
    const config = await runCli(["config", "--help"]);
    expect(config.stdout).toMatch(/show \[options\] <project-dir> +Print the project's configurations/);
    expect(config.stdout).toContain("Examples:\n  steamharness config show examples/assistant");
    expect(config.stdout).toContain("steamharness config import examples/assistant config.json");
    const chat = await runCli(["chat", "--help"]);
    expect(chat.stdout).toContain("At the prompt:\n  /compact [instructions] compacts the conversation\n  /exit ends the chat\n");
    expect(chat.stdout).toContain("apiKeyRef names");
  }, 60_000);
});
