import { Argument, type Command } from "commander";

// `steamharness init workflow|conversation [dir]`. The scaffold module loads only when the
// command runs, like the other subcommands.

const NEXT_STEPS: Record<"workflow" | "conversation", string[]> = {
  workflow: [
    "npm install",
    "npm start                        # runs the greet entrypoint (steamharness run . greet)",
    "npm test                         # node --test through tsx",
    'npx steamharness mcp "$PWD"      # serve the entrypoints to an MCP client over stdio',
  ],
  conversation: [
    "npm install",
    "npm start                        # chat with the agent (steamharness chat .), offline model",
    "npm test                         # node --test through tsx",
    "# a real model: npm install @mariozechner/pi-ai, then OPENAI_API_KEY=sk-... npm start (README.md)",
  ],
};

/**
 * `steamharness init workflow|conversation [dir] [--force]`: writes a runnable TypeScript
 * project (package.json, the project module, tsconfig.json, a `node --test` test, README.md)
 * and prints the next steps. A non-empty folder is refused (exit code 2) unless `--force`.
 *
 * @example
 * registerInitCommand(program);
 */
export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("create a workflow or conversation project (TypeScript, with a test) in a new or empty folder")
    .addArgument(new Argument("<kind>", "what to create").choices(["workflow", "conversation"]))
    .argument("[dir]", "the project folder (created when missing)", ".")
    .option("--force", "write into a non-empty folder; files of the same names are replaced (and listed)")
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  steamharness init workflow my-workflow",
        "  steamharness init conversation .",
      ].join("\n"),
    )
    .action(async (kind: "workflow" | "conversation", dir: string, flags: { force?: boolean }) => {
      const [{ scaffoldProject }, { readPackageManifest }, { relative }] = await Promise.all([
        import("./scaffold.js"),
        import("../package-manifest.js"),
        import("node:path"),
      ]);
      const result = scaffoldProject({ kind, directory: dir, force: flags.force === true, manifest: readPackageManifest() });
      const lines = [`Created a ${kind} project in ${result.directory} (project id ${result.projectId}):`];
      for (const file of result.created) lines.push(`  ${file}${result.overwritten.includes(file) ? "  (replaced the existing file)" : ""}`);
      lines.push("", "Next steps:");
      if (relative(process.cwd(), result.directory) !== "") lines.push(`  cd ${/\s/.test(dir) ? JSON.stringify(dir) : dir}`);
      for (const step of NEXT_STEPS[kind]) lines.push(`  ${step}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
