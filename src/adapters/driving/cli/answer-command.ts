import type { SurfaceServices } from "../../../ports/surface-services.js";
import { Option, type Command } from "commander";
import { SteamharnessError } from "../../../domain/errors.js";
import { addDataDirOptions, dataDirsFrom, formatReport, redactReport, type DataDirFlags } from "./commands.js";
import { exitCodeOfStatus } from "../shared/exit-codes.js";
import { timeoutMs } from "../shared/option-parsers.js";
import { addRunRetentionOption, runRetentionFrom, type RunRetentionFlags } from "./runs-command.js";
import { approvalPolicyFrom } from "./approval-policy-option.js";

// DX-10: `steamharness answer <workflow-dir> <run-id> <request-id> --approve | --deny | --value`
// answers a run that `run` left waiting (exit code 3) and runs it again on its run id.

interface AnswerFlags extends DataDirFlags, RunRetentionFlags {
  approve?: boolean;
  deny?: string | boolean;
  value?: string;
  json?: boolean;
  timeout?: number;
}

/**
 * Registers `steamharness answer <workflow-dir> <run-id> <request-id>`.
 *
 * @example
 * registerAnswerCommand(program);
 */
export function registerAnswerCommand(program: Command, services: SurfaceServices): void {
  const command = program
    .command("answer")
    .description("answer a run that `steamharness run` left waiting (exit code 3) and run it again on its run id")
    .argument("<workflow-dir>", "workflow project folder")
    .argument("<run-id>", "the run id `run` printed")
    .argument("<request-id>", "the request id it waits for")
    .option("--approve", "approve the pending approval")
    .option("--deny [reason]", "deny the pending approval")
    .option("--value <json>", "the input form's values as a JSON object, e.g. '{\"answer\":\"blue\"}'")
    .option("--json", "print the run report as JSON (as run --json)")
    .addOption(new Option("--timeout <ms>", "kill the run after this many milliseconds (a whole number ≥ 1)").argParser(timeoutMs));
  addRunRetentionOption(addDataDirOptions(command)).action(async (dir: string, runId: string, requestId: string, flags: AnswerFlags) => {
    // Loaded on use: the answer checks bring TypeBox, which no other command's start needs.
    const [{ createTerminalHandlers }, { answerHint, parseAnswer }, { openProjectRunner }, { answeringHandlers }] = await Promise.all([
      import("./terminal-handlers.js"),
      import("./paused-runs.js"),
      import("../../../app/workflow-runs/project-runner.js"),
      import("../../../domain/workflow/paused-run.js"),
    ]);
    const runner = await openProjectRunner({ projectDir: dir, ports: await services.workflowRunPorts(), dirs: dataDirsFrom(flags), relatedProjects: flags.relatedProject ?? [], ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }), ...runRetentionFrom(flags), ...(await approvalPolicyFrom(flags, services)) });
    try {
      const run = await runner.findPausedRun(runId);
      if (!run) throw new SteamharnessError("not_found", `no paused run ${runId} in this project (a run that \`steamharness run\` left waiting, exit code 3, not answered since)`, { field: "run-id" });
      if (run.pending.requestId !== requestId) throw new SteamharnessError("input_validation", `run ${runId} waits for ${run.pending.kind} ${run.pending.requestId}, not ${requestId}`, { field: "request-id" });
      const answers = { ...run.answers, [requestId]: parseAnswer(flags, run.pending, { surface: "cli", at: Date.now() }) };
      const entrypoint = await runner.entrypoint(run.entrypointId);
      const prepared = await runner.prepare(entrypoint, run.args);
      const terminal = createTerminalHandlers(process.stdin.isTTY === true && process.stderr.isTTY === true);
      const used = { ...run, answers };
      const report = redactReport(await runner.run(entrypoint, prepared, answeringHandlers(used, terminal), { runId }).finally(() => terminal.close()), runner.secrets);
      // An answer that did not fit the form: the run stays paused as it was, to be answered again.
      if (report.status === "failed" && report.error?.code === "input_validation") throw new SteamharnessError("input_validation", report.error.message, { field: "--value" });
      await runner.keepPausedRun(report, { entrypointId: run.entrypointId, args: run.args, answers: used.answers });
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      if (report.status === "waiting_for_input" && report.pending) process.stderr.write(answerHint(dir, report));
      process.exitCode = exitCodeOfStatus(report.status);
    } finally {
      await runner.close();
    }
  });
}
