import type { Command } from "commander";
import { SteamharnessError } from "../../../domain/errors.js";
import type { ForkPoint } from "../../../domain/time-travel/fork.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import type { ViewFlags } from "./view-run.js";

/**
 * The fork point of `--at`: `<seq>` (after that event) or `turn:<n>` (after the first n turns).
 *
 * @example
 * forkPointOf("12") // { seq: 12 }
 * forkPointOf("turn:2") // { turn: 2 }
 */
export function forkPointOf(at: string): ForkPoint {
  const match = /^(turn:)?(\d{1,15})$/.exec(at.trim());
  if (!match) throw new SteamharnessError("input_validation", `--at must be an event seq (12) or a turn (turn:2), not ${JSON.stringify(at)}`, { field: "at" });
  return match[1] ? { turn: Number(match[2]) } : { seq: Number(match[2]) };
}

/**
 * Registers `steamharness fork <session> --at <seq|turn:n> [--effects recorded]` (FORK-1,
 * FORK-2) with the storage flags of `view` (the session id is the viewer's, from its URL): forks
 * the session, prints the fork's session id and the hazard report (`--json`: as JSON). It lives
 * beside the viewer because it names sessions as the viewer does.
 *
 * @example
 * registerForkCommand(program, services);
 */
export function registerForkCommand(program: Command, services: SurfaceServices): void {
  program
    .command("fork")
    .description("fork an agent session after an event or a turn: a new session with the parent's history up to there, and the parent's tool calls after it (the hazard report)")
    .argument("<session>", "the session id, as the viewer's URL shows it (?s=…)")
    .requiredOption("--at <point>", "after which event seq (12), or after how many turns (turn:2)")
    .option("--effects <mode>", "a repeat of an unsafe call the parent made after the point: decide (a fresh decision) or recorded (answered from the parent's recording)", "decide")
    .option("--json", "print the result as JSON")
    .argument("[project-dir]", "a project folder: its sessions (<project-dir>/.workflow/agents)")
    .option("--data-dir <dir>", "root of local data, for a project folder (default ~/.steamharness)")
    .option("--store <dir>", "a SQLite storage directory; default ./.steamharness")
    .option("--agent-store-dir <dir>", "the session folder, when it is not <store>/agents")
    .option("--postgres <url>", "fork a session of a PostgreSQL storage")
    .option("--schema <name>", "the PostgreSQL schema (default steamharness)")
    .action(async (session: string, projectDir: string | undefined, flags: ViewFlags & { at: string; effects: string; json?: boolean }) => {
      const [{ openViewTarget }, { parseViewerSessionId, viewerSessionId }, { forkSession }] = await Promise.all([import("./view-run.js"), import("./viewer-sessions.js"), import("../../../app/time-travel/fork-session.js")]);
      const from = parseViewerSessionId(session);
      const at = forkPointOf(flags.at);
      if (flags.effects !== "decide" && flags.effects !== "recorded") throw new SteamharnessError("input_validation", "--effects must be decide or recorded", { field: "effects" });
      const { storage } = await openViewTarget({ ...flags, ...(projectDir === undefined ? {} : { projectDir }) }, services);
      try {
        if (!storage.sessions) throw new SteamharnessError("unavailable", "this storage keeps no sessions");
        const fork = await forkSession({ sessions: storage.sessions, from, at, effects: flags.effects });
        const result = { session: viewerSessionId(fork.address), address: fork.address, atSeq: fork.atSeq, hazards: fork.hazards.map(({ result: _result, ...hazard }) => hazard) };
        if (flags.json) return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        const lines = [`forked at seq ${fork.atSeq}: ${result.session}`, fork.hazards.length === 0 ? "no tool calls of the parent after this point" : "the parent's tool calls after this point:"];
        for (const hazard of fork.hazards) lines.push(`  #${hazard.seq} ${hazard.toolName} ${JSON.stringify(hazard.arguments)} — ${hazard.replay}${hazard.ran ? ", ran" : ""}${hazard.approval ? `, ${hazard.approval}` : ""}: ${hazard.summary}`);
        process.stdout.write(`${lines.join("\n")}\n`);
      } finally {
        await storage.close();
      }
    });
}
