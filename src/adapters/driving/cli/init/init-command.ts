import { Argument, type Command } from "commander";
import type { TextFiles } from "../../../../ports/text-files.js";
import type { PackageManifest } from "./scaffold.js";

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
 * and prints the next steps. A non-empty folder is refused (exit code 2) unless `--force`. It
 * writes through `files`, the root's (ARCH-9).
 *
 * @example
 * registerInitCommand(program, () => readPackageManifest(), services.textFiles);
 */
export function registerInitCommand(program: Command, manifest: () => PackageManifest | null, files: TextFiles): void {
  program
    .command("init")
    .description("create a workflow or conversation project (TypeScript, with a test) in a new or empty folder")
    .addArgument(new Argument("<kind>", "what to create").choices(["workflow", "conversation"]))
    .addArgument(new Argument("[dir]", "the project folder (created when missing)").default(".", "the current folder"))
    .option("--force", "write into a non-empty folder; files of the same names are replaced (and listed), an existing package.json is merged")
    .option("--steamharness-from <path>", "the steamharness dependency from a tarball (npm pack) or a checkout: a file: dependency")
    .action(async (kind: "workflow" | "conversation", dir: string, flags: { force?: boolean; steamharnessFrom?: string }) => {
      const [{ scaffoldProject }, { steamharnessSource }, { relative }] = await Promise.all([
        import("./scaffold.js"),
        import("./steamharness-source.js"),
        import("node:path"),
      ]);
      const source = flags.steamharnessFrom === undefined ? undefined : await steamharnessSource(flags.steamharnessFrom, dir, files);
      const result = await scaffoldProject({ kind, directory: dir, force: flags.force === true, manifest: manifest(), ...(source ? { steamharnessSpec: source.spec } : {}) }, files);
      const lines = [`Created a ${kind} project in ${result.directory} (project id ${result.projectId}):`];
      for (const file of result.created) {
        if (file === "package.json" && result.manifestChanges) {
          lines.push(`  package.json  (merged into the existing file: ${result.manifestChanges.length === 0 ? "nothing to change" : `${result.manifestChanges.length} ${result.manifestChanges.length === 1 ? "change" : "changes"}`}; your other fields are kept)`);
          for (const change of result.manifestChanges) lines.push(`      ${change}`);
        } else lines.push(`  ${file}${result.overwritten.includes(file) ? "  (replaced the existing file)" : ""}`);
      }
      if (source) lines.push("", `steamharness comes from ${source.spec}${source.note ? ` (${source.note})` : ""}`);
      lines.push("", "Next steps:");
      if (relative(process.cwd(), result.directory) !== "") lines.push(`  cd ${/\s/.test(dir) ? JSON.stringify(dir) : dir}`);
      for (const step of NEXT_STEPS[kind]) lines.push(`  ${step}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
