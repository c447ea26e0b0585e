import { homedir } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { Option, type Command } from "commander";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { SessionStore } from "../../../ports/session-store.js";
import type { Storage } from "../../../ports/storage.js";
import { SteamharnessError } from "../../../domain/errors.js";
import { secretValues } from "../../../domain/redaction.js";

// Issue 46 items 3 and 4 on the command line: `replay`, `export-run`, `import-run` and `eval`
// (docs/time-travel.md). Their implementations load lazily, as every command's.

interface StoreFlags {
  project?: string;
  agentStoreDir?: string;
  dataDir?: string;
  postgres?: string;
  postgresSchema?: string;
  json?: boolean;
}

function addStoreOptions(command: Command): Command {
  return command
    .option("--project <dir>", "the conversation project (its agent's tools and models; its sessions in <dir>/.workflow/agents); default the working directory")
    .option("--agent-store-dir <dir>", "the session folder (default <project>/.workflow/agents)")
    .option("--data-dir <dir>", "root of local data (default ~/.steamharness)")
    .option("--postgres <url>", "the sessions of a PostgreSQL database instead of the session folder")
    .option("--postgres-schema <name>", "its schema (default steamharness)")
    .option("--json", "print the result as JSON");
}

/** The storage of the flags' sessions and its catalog; the caller closes the storage. */
async function openStore(flags: StoreFlags, services: SurfaceServices, projectId = "local"): Promise<{ storage: Storage; catalog: SessionCatalog }> {
  if (flags.postgres !== undefined) return services.sharedStorage({ connectionString: flags.postgres, ...(flags.postgresSchema === undefined ? {} : { schema: flags.postgresSchema }) });
  const sessionFolder = services.sessionFolderOf(resolve(flags.project ?? "."), flags.agentStoreDir === undefined ? undefined : resolve(flags.agentStoreDir));
  const dataDir = resolve(flags.dataDir ?? join(homedir(), ".steamharness"));
  const storage = await services.localStorage({ directory: join(dataDir, "projects", projectId), sessionFolder });
  return { storage, catalog: await services.localSessionCatalog(sessionFolder) };
}

/** The session holding run `runId` (opened without its lease; the caller closes it). `not_found` when none does. */
async function findRun(storage: Storage, catalog: SessionCatalog, runId: string): Promise<SessionStore> {
  for (const entry of await catalog.list()) {
    const store = await storage.sessions!.openUnleased({ address: entry.address, create: false });
    if (!store) continue;
    if ((await store.readRun(runId)).length > 0) return store;
    await store.close();
  }
  throw new SteamharnessError("not_found", `[steamharness] [replay] no session holds run ${runId}`, { field: "run" });
}

/** The project's agent options and a context factory for its runs on `storage`. */
async function projectAgent(flags: StoreFlags, services: SurfaceServices) {
  const [{ openConversationProject }, { buildNodeContext }, { createAgentConfigurationLoader }] = await Promise.all([
    import("../../../app/conversation/conversation-project.js"),
    import("../../../app/node-context/node-context.js"),
    import("../../../domain/configuration/run-snapshot.js"),
  ]);
  const project = await openConversationProject(resolve(flags.project ?? "."), services.textFiles);
  const runtime = await services.runtime();
  const agent = { ...project.executor.agent };
  if (agent.configuration === undefined && agent.models === undefined) {
    const choice = await services.projectConfiguration({ dataDir: resolve(flags.dataDir ?? join(homedir(), ".steamharness")) });
    agent.configuration = createAgentConfigurationLoader({ store: choice.store, clock: runtime.clock(), resolveApiKey: (ref) => process.env[ref] });
  }
  const context = (storage: Storage, runId: string) => buildNodeContext({ projectId: project.manifest.id, storage, runId, toolCatalog: [...project.executor.toolCatalog] }, runtime);
  return { project, agent, context };
}

const write = (flags: StoreFlags, value: unknown, text: string) => process.stdout.write(flags.json ? `${JSON.stringify(value, null, 2)}\n` : text);

/**
 * Registers `steamharness replay <run>`, `export-run <run>`, `import-run <file>` and `eval <suite>`.
 *
 * @example
 * registerTimeTravelCommands(program, services);
 */
export function registerTimeTravelCommands(program: Command, services: SurfaceServices): void {
  addStoreOptions(
    program
      .command("replay")
      .description("re-run a recorded run as a new run, its tool calls answered from the recording, and print its diff against the original (exit 1 when the replay did not complete)")
      .argument("<run>", "the recorded run's id")
      .addOption(new Option("--tools <mode>", "recorded (the default): every call from the recording; live-safe: safe tools run live; live: all run live").choices(["recorded", "live-safe", "live"]))
      .addOption(new Option("--on-divergence <policy>", "a call the recording lacks: fail (the default), or live-safe (safe tools run live, others are skipped)").choices(["fail", "live-safe"]))
      .option("--model <id>", "another model (a configured entry id)")
      .option("--prompt <text>", "another prompt"),
  ).action(async (runId: string, flags: StoreFlags & { tools?: "recorded" | "live-safe" | "live"; onDivergence?: "fail" | "live-safe"; model?: string; prompt?: string }) => {
    const { replayRun } = await import("../../../app/time-travel/replay.js");
    const { project, agent, context } = await projectAgent(flags, services);
    const { storage, catalog } = await openStore(flags, services, project.manifest.id);
    try {
      const source = await findRun(storage, catalog, runId);
      try {
        const result = await replayRun(runId, { source, sessions: storage.sessions!, agent, context: context(storage, runId), tools: flags.tools ?? "recorded", onDivergence: flags.onDivergence ?? "fail", ...(flags.model ? { model: flags.model } : {}), ...(flags.prompt ? { prompt: flags.prompt } : {}) });
        const { diff } = result;
        write(flags, result, `replay ${result.runId}: ${result.status}${result.error ? ` (${result.error.message})` : ""}; ${result.answered} calls answered from the recording, ${result.live} live, ${result.divergences.length} divergences\n` +
          `final text ${diff.finalText.equal ? "same" : "differs"}; tool sequence ${diff.toolSequence.equal ? "same" : "differs"}; approvals ${diff.approvals.original.length} → ${diff.approvals.replay.length}; tokens ${diff.tokens.original.total} → ${diff.tokens.replay.total}; latency ${diff.latencyMs.original} → ${diff.latencyMs.replay} ms\n`);
        if (result.status !== "completed") process.exitCode = 1;
      } finally {
        await source.close();
      }
    } finally {
      await storage.close();
    }
  });

  addStoreOptions(program.command("export-run").description("write a run as portable JSONL (secrets redacted)").argument("<run>", "the run's id").option("--output <file>", "write to this file (default stdout)")).action(
    async (runId: string, flags: StoreFlags & { output?: string }) => {
      const { exportRun } = await import("../../../app/time-travel/run-export.js");
      const { storage, catalog } = await openStore(flags, services);
      try {
        const source = await findRun(storage, catalog, runId);
        try {
          const text = await exportRun(source, runId, { secrets: secretValues(process.env) });
          if (flags.output === undefined) process.stdout.write(text);
          else await services.textFiles.write(resolve(flags.output), text);
        } finally {
          await source.close();
        }
      } finally {
        await storage.close();
      }
    },
  );

  addStoreOptions(program.command("import-run").description("import a run exported by export-run into these sessions").argument("<file>", "the exported JSONL file")).action(async (file: string, flags: StoreFlags) => {
    const { importRun } = await import("../../../app/time-travel/run-export.js");
    const { storage } = await openStore(flags, services);
    try {
      const imported = await importRun(await services.textFiles.read(resolve(file)), { sessions: storage.sessions! });
      write(flags, imported, `imported run ${imported.runId} into session ${imported.address.sessionKey} (${imported.appended} events written)\n`);
    } finally {
      await storage.close();
    }
  });

  addStoreOptions(
    program
      .command("eval")
      .description("replay an eval suite's cases and score them; exit 1 when a case fails, or with --baseline when a case that passed there fails now")
      .argument("<suite>", "the suite: a JSON or YAML (.yaml, .yml) file, or a .js/.mjs/.ts module whose default export is one (with `scorers`)")
      .option("--baseline <scorecard>", "a scorecard JSON of an earlier run: only regressions against it fail")
      .option("--scorecard <file>", "write the scorecard JSON here")
      .option("--junit <file>", "write JUnit XML here"),
  ).action(async (suitePath: string, flags: StoreFlags & { baseline?: string; scorecard?: string; junit?: string }) => {
    const [{ runEvalSuite }, { importRun }, suiteRules] = await Promise.all([import("../../../app/time-travel/eval.js"), import("../../../app/time-travel/run-export.js"), import("../../../domain/time-travel/eval-suite.js")]);
    const file = resolve(suitePath);
    const format = extname(file).toLowerCase();
    const raw = format === ".json" ? parseJson(await services.textFiles.read(file), "suite")
      : format === ".yaml" || format === ".yml" ? await parseYaml(await services.textFiles.read(file))
      : ((await importModule(file)) as { default?: unknown }).default;
    const suite = suiteRules.checkEvalSuite(raw);
    const scorers = ((raw as { scorers?: unknown }).scorers ?? {}) as Record<string, (facts: unknown) => boolean | string | null>;
    const baseline = flags.baseline === undefined ? null : (parseJson(await services.textFiles.read(resolve(flags.baseline)), "baseline") as import("../../../domain/time-travel/eval-suite.js").EvalScorecard);
    const { project, agent, context } = await projectAgent(flags, services);
    const { storage, catalog } = await openStore(flags, services, project.manifest.id);
    try {
      const scorecard = await runEvalSuite(suite, {
        agent,
        context: (entry) => context(storage, entry.name),
        scorers,
        async openCase(entry) {
          if (entry.run !== undefined) {
            const source = await findRun(storage, catalog, entry.run);
            return { source, sessions: storage.sessions!, runId: entry.run, close: () => source.close() };
          }
          const imported = await importRun(await services.textFiles.read(resolve(dirname(file), entry.file!)), { sessions: storage.sessions! });
          const source = (await storage.sessions!.openUnleased({ address: imported.address, create: false }))!;
          return { source, sessions: storage.sessions!, runId: imported.runId, close: () => source.close() };
        },
      });
      const regressions = baseline ? suiteRules.evalRegressions(baseline, scorecard) : null;
      if (flags.scorecard !== undefined) await services.textFiles.write(resolve(flags.scorecard), `${JSON.stringify(scorecard, null, 2)}\n`);
      if (flags.junit !== undefined) await services.textFiles.write(resolve(flags.junit), suiteRules.junitXml(scorecard));
      write(flags, { ...scorecard, ...(regressions ? { regressions } : {}) }, `${scorecard.suite}: ${scorecard.passed}/${scorecard.cases.length} passed${regressions ? `; ${regressions.length} regressions against the baseline${regressions.length ? ` (${regressions.join(", ")})` : ""}` : ""}\n` +
        scorecard.cases.filter((entry) => !entry.pass).map((entry) => `  ✗ ${entry.name}: ${entry.error ? entry.error.message : entry.checks.filter((check) => !check.pass).map((check) => check.message).join("; ")}\n`).join(""));
      if (regressions ? regressions.length > 0 : scorecard.failed > 0) process.exitCode = 1;
    } finally {
      await storage.close();
    }
  });
}

function parseJson(text: string, field: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SteamharnessError("input_validation", `[steamharness] [eval] the ${field} is not JSON`, { field });
  }
}

/** A YAML suite as plain data (one document; anchors and aliases resolve, custom tags are refused). */
async function parseYaml(text: string): Promise<unknown> {
  const { parseDocument } = await import("yaml");
  const document = parseDocument(text);
  const [error] = document.errors;
  if (error) {
    // The message's first line, which names the line and column (linePos) itself.
    throw new SteamharnessError("input_validation", `[steamharness] [eval] the suite is not valid YAML: ${error.message.split("\n")[0]!.replace(/:$/, "")}`, { field: "suite" });
  }
  return document.toJS({ maxAliasCount: 100 }) as unknown;
}

/** A suite module (TypeScript or JavaScript) through tsx, as conversation projects load. */
async function importModule(file: string): Promise<unknown> {
  const [{ pathToFileURL }, { tsImport }] = await Promise.all([import("node:url"), import("tsx/esm/api")]);
  return tsImport(pathToFileURL(file).href, import.meta.url);
}
