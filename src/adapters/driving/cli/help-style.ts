/**
 * One style for every `--help` of `steamharness` (DX-8): command descriptions are sentences (a
 * capital first letter), option and argument descriptions are lower-case phrases, a default is
 * written once as `default X` (commander's own `(default: "X")` is folded into the description's
 * parenthesis), and every command ends with the exit-code table.
 */
import type { Argument, Command, HelpConfiguration, Option } from "commander";
import { EXIT_CODES_HELP } from "../shared/exit-codes.js";

/** A default as a person reads it: `8787`, `127.0.0.1`, `{}` (no JSON quotes around a string). */
function shownDefault(value: unknown, description: string | undefined): string {
  if (description !== undefined) return description;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** `text` with `extra` added once: inside its closing parenthesis when it ends with one. */
function withExtra(text: string, extra: string[]): string {
  if (extra.length === 0) return text;
  const joined = extra.join("; ");
  if (text.endsWith(")")) return `${text.slice(0, -1)}; ${joined})`;
  return text ? `${text} (${joined})` : `(${joined})`;
}

/** What commander appends (choices, default, env), in the house style. */
function extraOf(item: { argChoices?: string[]; defaultValue?: unknown; defaultValueDescription?: string }, showDefault: boolean): string[] {
  const extra: string[] = [];
  if (item.argChoices) extra.push(`choices: ${item.argChoices.map((choice) => JSON.stringify(choice)).join(", ")}`);
  if (showDefault && item.defaultValue !== undefined) extra.push(`default ${shownDefault(item.defaultValue, item.defaultValueDescription)}`);
  return extra;
}

/**
 * The help configuration every `steamharness` command uses (`program.configureHelp(HELP_STYLE)`).
 *
 * @example
 * new Command("steamharness").configureHelp(HELP_STYLE);
 */
export const HELP_STYLE: HelpConfiguration = {
  optionDescription(option: Option): string {
    // As commander: a boolean flag's default is for the programmer, not shown.
    const show = option.required || option.optional || (option.isBoolean() && typeof option.defaultValue === "boolean");
    // A default some description spells `default: X` reads like the others.
    return withExtra(option.description.replace(/\bdefault: /g, "default "), [...extraOf(option, show), ...(option.envVar ? [`env ${option.envVar}`] : [])]);
  },
  argumentDescription(argument: Argument): string {
    return withExtra(argument.description, extraOf(argument, true));
  },
};

/** `text` with its first letter in capitals. */
const sentence = (text: string): string => (text ? `${text[0]!.toUpperCase()}${text.slice(1)}` : text);

/**
 * Applies the house style to `command` and every command below it: sentence-case descriptions,
 * the help command described like the others, and the exit-code table after each help.
 *
 * @example
 * styleHelp(program);
 */
export function styleHelp(command: Command): void {
  command.configureHelp(HELP_STYLE);
  command.description(sentence(command.description()));
  if (command.commands.length > 0) command.helpCommand("help [command]", "Display help for a command");
  command.addHelpText("after", `\n${EXIT_CODES_HELP}`);
  for (const sub of command.commands) styleHelp(sub);
}
