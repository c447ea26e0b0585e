/**
 * `steamharness config` (CFG-1): the local project configuration store from the command line —
 * `show`, `export` and `import` of a project's configurations as JSON, for any project type
 * (the project is named by its folder; its `package.json` `id` is the key). An import replaces
 * the whole project and needs the revision it was exported at (the document's `revision`, or
 * `--expected-revision`): a project changed since is a `conflict`, never overwritten.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { SteamharnessError } from "../../../../domain/errors.js";
import { isUuid } from "../../../../domain/workflow/project-manifest.js";
import type { TextFiles } from "../../../../ports/text-files.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import type { SurfaceServices } from "../../../../ports/surface-services.js";

interface CommonFlags {
  dataDir?: string;
  authDir?: string;
}

/**
 * Registers `steamharness config show|export|import`.
 *
 * @example
 * registerConfigCommand(program, services);
 */
export function registerConfigCommand(program: Command, services: SurfaceServices): void {
  const config = program
    .command("config")
    .description("show, export and import a project's configurations (local store, or the configuration server when one is set up)");
  config
    .command("show")
    .description("print the project's configurations (JSON)")
    .argument("<project-dir>", "the project folder (its package.json id names the project)")
    .option("--data-dir <dir>", "root of local data (default ~/.steamharness)")
    .option("--auth-dir <dir>", "where the saved server login workflow-auth.json is (default <data-dir>)")
    .action(async (dir: string, flags: CommonFlags) => {
      await withStore(services, dir, flags, async (store, projectId) => print(await store.read(projectId)));
    });
  config
    .command("export")
    .description("print (or write to a file) an export document of the project's configurations, with its revision")
    .argument("<project-dir>", "the project folder")
    .option("--data-dir <dir>", "root of local data (default ~/.steamharness)")
    .option("--auth-dir <dir>", "where the saved server login workflow-auth.json is (default <data-dir>)")
    .option("-o, --output <file>", "write the document to a file instead of stdout")
    .action(async (dir: string, flags: CommonFlags & { output?: string }) => {
      await withStore(services, dir, flags, async (store, projectId) => {
        const document = await store.exportProject(projectId);
        if (flags.output) {
          await services.textFiles.write(flags.output, `${JSON.stringify(document, null, 2)}\n`).catch((cause: unknown) => {
            throw new SteamharnessError("input_validation", `cannot write ${flags.output}: ${(cause as Error)?.message ?? String(cause)}`, { field: "output", cause });
          });
        } else print(document);
      });
    });
  config
    .command("import")
    .description("replace the project's configurations with an export document (refused when the project changed since that revision)")
    .argument("<project-dir>", "the project folder")
    .argument("<file>", "an export document (JSON)")
    .option("--data-dir <dir>", "root of local data (default ~/.steamharness)")
    .option("--auth-dir <dir>", "where the saved server login workflow-auth.json is (default <data-dir>)")
    .option("--expected-revision <n>", "the project revision the import replaces (default the document's revision)")
    .action(async (dir: string, file: string, flags: CommonFlags & { expectedRevision?: string }) => {
      const document = await readJson(services.textFiles, file);
      const fromDocument = (document as { revision?: unknown } | null)?.revision;
      const expected = flags.expectedRevision !== undefined ? Number(flags.expectedRevision) : fromDocument;
      if (typeof expected !== "number" || !Number.isInteger(expected) || expected < 0) {
        throw new SteamharnessError("input_validation", "give --expected-revision (the document carries no revision to check against)", { field: "expectedRevision" });
      }
      await withStore(services, dir, flags, async (store, projectId) => print(await store.importProject(projectId, document, { expectedRevision: expected })));
    });
}

async function withStore(services: SurfaceServices, dir: string, flags: CommonFlags, run: (store: ProjectConfigurationStore, projectId: string) => Promise<void>): Promise<void> {
  const projectId = await projectIdOf(services.textFiles, dir);
  const dataDir = resolve(flags.dataDir ?? join(homedir(), ".steamharness"));
  // Loaded on use: other commands (and the MCP handshake) do not open SQLite.
  const choice = await services.projectConfiguration({ dataDir, authDir: resolve(flags.authDir ?? dataDir), modelCredential: false });
  const { store } = choice;
  try {
    await run(store, projectId);
    // After the command, so a refused one still ends on its one line (DX-8).
    process.stderr.write(`${await choice.describe()}\n`);
  } finally {
    await store.close?.();
  }
}

async function projectIdOf(files: TextFiles, dir: string): Promise<string> {
  const pkg = (await readJson(files, join(resolve(dir), "package.json"))) as { id?: unknown } | null;
  if (!isUuid(pkg?.id)) throw new SteamharnessError("input_validation", `${join(dir, "package.json")} has no UUID "id"; configurations belong to a project id`, { field: "id" });
  return pkg.id as string;
}

async function readJson(files: TextFiles, path: string): Promise<unknown> {
  let text: string;
  try {
    text = await files.read(path);
  } catch (cause) {
    throw new SteamharnessError("input_validation", `cannot read ${path}`, { field: "file", cause });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new SteamharnessError("input_validation", `${path} is not valid JSON`, { field: "file", cause });
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
