import type { SurfaceServices } from "../../../ports/surface-services.js";
import { InvalidArgumentError, Option, type Command } from "commander";
import { isAbsolute } from "node:path";
import { isSteamharnessError, SteamharnessError } from "../../../domain/errors.js";
import { parseRetention } from "../../../app/workflow-runs/run-retention.js";

// SES-12: `--run-retention` on the commands that run workflow entrypoints, and
// `steamharness runs prune`, which removes the agent sessions of old finished runs now.

/** Commander's parsed `--run-retention` (milliseconds, or `null` for never). */
export interface RunRetentionFlags {
  runRetention?: number | null;
}

/** The commander parser of a duration flag: `7d`, `12h`, `30m`, `45s`, `500ms`, `0`, or `never`. */
function durationFlag(flag: string, never = true): (value: string) => number | null {
  return (value) => {
    try {
      const ms = parseRetention(value, flag);
      if (ms === null && !never) throw new InvalidArgumentError("expected a duration such as 7d, 12h, 30m, 45s or 0.");
      return ms;
    } catch (error) {
      if (error instanceof InvalidArgumentError) throw error;
      throw new InvalidArgumentError(isSteamharnessError(error) ? error.message.replace(`${flag} takes`, "expected") : String(error));
    }
  };
}

/**
 * Adds `--run-retention <duration>` (SES-12) to a command that runs entrypoints.
 *
 * @example
 * addRunRetentionOption(program.command("run"));
 */
export function addRunRetentionOption(command: Command): Command {
  return command.addOption(
    new Option(
      "--run-retention <duration>",
      "keep a finished run's agent sessions this long (7d, 12h, 30m, 0, or never; default 7d); later runs remove older ones in small batches. A run waiting for an answer keeps them",
    ).argParser(durationFlag("--run-retention")),
  );
}

/**
 * The runner option of `--run-retention`, when given.
 *
 * @example
 * createProjectRunner({ projectDir, ...runRetentionFrom(flags) });
 */
export function runRetentionFrom(flags: RunRetentionFlags): { runRetentionMs?: number | null } {
  return flags.runRetention === undefined ? {} : { runRetentionMs: flags.runRetention };
}

interface PruneFlags {
  olderThan?: number | null;
  agentStoreDir?: string;
  json?: boolean;
}

/**
 * Registers `steamharness runs prune <workflow-dir> [--older-than <duration>] [--agent-store-dir <dir>] [--json]`:
 * removes the agent sessions of the project's finished runs older than the duration (default
 * 7 days) and of runs whose retention ran out, in batches, and prints how many went. Runs waiting
 * for an answer, and runs whose session is held by a live run, are kept.
 *
 * @example
 * registerRunsCommand(program);
 */
export function registerRunsCommand(program: Command, services: SurfaceServices): void {
  const runs = program.command("runs").description("manage the runs of a workflow project");
  runs
    .command("prune")
    .description("remove the agent sessions of finished runs older than --older-than (runs waiting for an answer are kept)")
    .argument("<workflow-dir>", "workflow project folder")
    .addOption(new Option("--older-than <duration>", "finished before this long ago (7d, 12h, 30m, 0; default 7d)").argParser(durationFlag("--older-than", false)))
    .addOption(new Option("--agent-store-dir <dir>", "durable agent sessions (absolute; default <workflow-dir>/.workflow/agents)"))
    .option("--json", "print { removed, deferred } as JSON")
    .action(async (dir: string, flags: PruneFlags) => {
      if (flags.agentStoreDir !== undefined && !isAbsolute(flags.agentStoreDir)) {
        throw new SteamharnessError("input_validation", `--agent-store-dir must be an absolute path: ${flags.agentStoreDir}`, { field: "--agent-store-dir" });
      }
      const { pruneProjectRuns } = await import("../../../app/workflow-runs/run-pruning.js");
      const outcome = await pruneProjectRuns({ projectDir: dir, ports: await services.workflowRunPorts(), ...(flags.agentStoreDir !== undefined ? { sessionFolder: flags.agentStoreDir } : {}), ...(flags.olderThan !== undefined && flags.olderThan !== null ? { olderThanMs: flags.olderThan } : {}) });
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(outcome, null, 2)}\n`
          : `removed the agent sessions of ${outcome.removed.length} run(s)${outcome.deferred.length ? `; ${outcome.deferred.length} in use, kept` : ""}\n`,
      );
    });
}
