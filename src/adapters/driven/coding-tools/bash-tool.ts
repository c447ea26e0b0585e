import { spawn } from "node:child_process";
import { Type } from "@sinclair/typebox";
import { textToolResult, type AgentTool } from "../../../domain/agent-tool.js";
import { SteamharnessError } from "../../../domain/errors.js";

const BashParams = Type.Object({
  command: Type.String({ description: "A bash command line, run in the workdir" }),
  timeout: Type.Optional(Type.Number({ minimum: 1, description: "Timeout in seconds" })),
});

const MAX_OUTPUT = 64 * 1024;
const KILL_GRACE_MS = 2000;

/** Options of {@link createBashTool}. */
export interface BashToolOptions {
  workdir: string;
  /** Default timeout in ms (default 120000). */
  timeoutMs?: number;
  /**
   * The command's environment variables (a session's stable environment, EXT-5): only `PATH`,
   * `HOME` and these; without it the command inherits the process environment.
   */
  env?: Readonly<Record<string, string>>;
  /** The shell that runs the command with `-c` (default `/bin/bash`). */
  shell?: string;
}

/**
 * The bash tool: `/bin/bash -c` in its own process group, in the workdir. A timeout or an abort
 * kills the whole group (SIGTERM, then SIGKILL after 2 s), so children started by the command do
 * not outlive it. Output is stdout and stderr interleaved, keeping the last 64 KB. bash is not
 * confined to the workdir: `permissionPolicy` governs whether it runs (AG-6). `replay: "never"`.
 *
 * @example
 * const bash = createBashTool({ workdir: "/tmp/w" });
 * await bash.execute("call-1", { command: "ls" });
 */
export function createBashTool(options: BashToolOptions): AgentTool {
  const tool: AgentTool<typeof BashParams> = {
    name: "bash",
    label: "Run bash",
    description: "Run a bash command in the workdir and return its output and exit code.",
    parameters: BashParams,
    replay: "never",
    execute(_id, params, signal) {
      const { command, timeout } = params as { command: string; timeout?: number };
      const timeoutMs = timeout !== undefined ? timeout * 1000 : options.timeoutMs ?? 120_000;
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(new SteamharnessError("cancelled", "bash: cancelled before start"));
        const env = options.env === undefined ? undefined : { ...(process.env.PATH === undefined ? {} : { PATH: process.env.PATH }), ...(process.env.HOME === undefined ? {} : { HOME: process.env.HOME }), ...options.env };
        const child = spawn(options.shell ?? "/bin/bash", ["-c", command], { cwd: options.workdir, detached: true, stdio: ["ignore", "pipe", "pipe"], ...(env ? { env } : {}) });
        let output = "";
        let ended: "timeout" | "cancelled" | null = null;
        const append = (data: Buffer) => {
          output += data.toString("utf8");
          if (output.length > MAX_OUTPUT * 2) output = output.slice(-MAX_OUTPUT);
        };
        child.stdout.on("data", append);
        child.stderr.on("data", append);
        const killGroup = (signalName: NodeJS.Signals) => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, signalName);
          } catch {
            // The group is already gone.
          }
        };
        let hardKill: NodeJS.Timeout | undefined;
        const stop = (reason: "timeout" | "cancelled") => {
          if (ended) return;
          ended = reason;
          killGroup("SIGTERM");
          hardKill = setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
        };
        const timer = setTimeout(() => stop("timeout"), timeoutMs);
        const onAbort = () => stop("cancelled");
        signal?.addEventListener("abort", onAbort, { once: true });
        child.on("error", (error) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          reject(new SteamharnessError("unavailable", `bash could not start: ${error.message}`, { cause: error }));
        });
        child.on("close", (code, killedBy) => {
          clearTimeout(timer);
          if (hardKill) clearTimeout(hardKill);
          signal?.removeEventListener("abort", onAbort);
          const tail = output.length > MAX_OUTPUT ? `[output truncated]\n${output.slice(-MAX_OUTPUT)}` : output;
          if (ended === "timeout") return reject(new SteamharnessError("timeout", `bash: timed out after ${timeoutMs} ms\n${tail}`));
          if (ended === "cancelled") return reject(new SteamharnessError("cancelled", "bash: cancelled"));
          const status = code === null ? `killed by ${killedBy}` : `exit code ${code}`;
          resolve(textToolResult(`${tail}${tail.endsWith("\n") || tail === "" ? "" : "\n"}[${status}]`, { exitCode: code }));
        });
      });
    },
  };
  return tool as AgentTool;
}
