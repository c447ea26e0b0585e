/**
 * What each command's `--help` ends with (DX-18): the exit codes that command can return, each
 * with what it means there, and examples runnable as written. Kept in one table so a new command
 * without a page fails the help test instead of inheriting another command's codes.
 */
import { EXIT_CODES } from "../shared/exit-codes.js";

/** The end of one command's help. */
export interface HelpPage {
  /** Exit code → what it means for this command (only the codes it can return). */
  exits: Partial<Record<(typeof EXIT_CODES)[keyof typeof EXIT_CODES], string>>;
  /** Commands a newcomer can paste, each optionally followed by `# what it does`. */
  examples: string[];
}

const UNEXPECTED = "an unexpected error (--debug prints its stack)";
const SUBCOMMAND = "unknown subcommand or option";
// The long-running servers share their ending and their start-up refusals.
const serving = (what: string): HelpPage["exits"] => ({
  [EXIT_CODES.success]: "stopped by Ctrl-C, SIGINT or SIGTERM",
  [EXIT_CODES.failed]: UNEXPECTED,
  [EXIT_CODES.usage]: `${what}, or the port is in use (nothing served)`,
});
const RUN_EXITS: HelpPage["exits"] = {
  [EXIT_CODES.success]: "success",
  [EXIT_CODES.failed]: "the run failed, was cancelled or timed out (or an unexpected error)",
  [EXIT_CODES.usage]: "usage or input error: bad option or flag value, bad --params, unknown entrypoint, missing or invalid project (nothing ran)",
  [EXIT_CODES.waitingForInput]: "the run is waiting for input or an approval that could not be asked (no terminal)",
};

/** Every command's page, by its path below `steamharness` ("" is the program itself). */
export const HELP_PAGES: Record<string, HelpPage> = {
  "": {
    exits: {
      [EXIT_CODES.success]: "the command did what was asked",
      [EXIT_CODES.failed]: "it failed (a run failed, a server refused, an unexpected error)",
      [EXIT_CODES.usage]: "usage or input error: fix the command line or the project (nothing ran)",
      [EXIT_CODES.waitingForInput]: "a run is waiting for input (run, answer); each command's --help lists its own codes",
    },
    examples: ["npx steamharness init workflow my-workflow", "npx steamharness run --help"],
  },
  init: {
    exits: { [EXIT_CODES.success]: "the project was written", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "bad kind, a non-empty folder without --force, or a bad --steamharness-from (nothing written)" },
    examples: ["npx steamharness init workflow my-workflow", "npx steamharness init conversation .", "npx steamharness init workflow my-workflow --steamharness-from ./steamharness-0.1.0.tgz"],
  },
  structure: {
    exits: { [EXIT_CODES.success]: "the report was printed", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "missing or invalid workflow project" },
    examples: ["npx steamharness structure examples/workflow-project --json"],
  },
  run: { exits: RUN_EXITS, examples: ["npx steamharness run examples/workflow-project greet --params '{\"name\":\"Ada\"}'", "npx steamharness run examples/workflow-project greet --json --timeout 60000"] },
  answer: {
    exits: { ...RUN_EXITS, [EXIT_CODES.usage]: "usage or input error: unknown run or request id, bad --value, missing or invalid project (nothing ran)", [EXIT_CODES.waitingForInput]: "the run went on and waits for another answer" },
    examples: ["npx steamharness run ./project ask              # exit code 3: prints the run id and request id", "npx steamharness answer ./project 20260828-… input-1 --value '{\"answer\":\"blue\"}'"],
  },
  runs: { exits: { [EXIT_CODES.success]: "help printed", [EXIT_CODES.usage]: SUBCOMMAND }, examples: ["npx steamharness runs prune examples/workflow-project --older-than 7d"] },
  "runs prune": {
    exits: { [EXIT_CODES.success]: "pruned (prints how many sessions it removed)", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "bad --older-than or a missing project" },
    examples: ["npx steamharness runs prune examples/workflow-project --older-than 0 --json"],
  },
  audit: { exits: { [EXIT_CODES.success]: "help printed", [EXIT_CODES.usage]: SUBCOMMAND }, examples: ["npx steamharness audit verify --store ./data/store"] },
  "audit export": {
    exits: { [EXIT_CODES.success]: "the entries were written (JSONL)", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "neither or both of --store and --postgres, or a bad option" },
    examples: ["npx steamharness audit export --store ./data/store > audit.jsonl", "npx steamharness audit export --store ./data/store --tenant key:acme"],
  },
  "audit verify": {
    exits: { [EXIT_CODES.success]: "every chain verified", [EXIT_CODES.failed]: "a changed, removed or reordered entry (named on stderr), or an unexpected error", [EXIT_CODES.usage]: "no store or file, or an unreadable --file" },
    examples: ["npx steamharness audit verify --store ./data/store", "npx steamharness audit verify --file audit.jsonl"],
  },
  replay: {
    exits: { [EXIT_CODES.success]: "the replay completed (its diff printed)", [EXIT_CODES.failed]: "the replay did not complete (a divergence the policy refuses, a failure), or an unexpected error", [EXIT_CODES.usage]: "unknown run, bad option, or a missing or invalid conversation project" },
    examples: ["npx steamharness replay run-7f3a --project examples/assistant", "npx steamharness replay run-7f3a --project examples/assistant --tools live-safe --json"],
  },
  "export-run": {
    exits: { [EXIT_CODES.success]: "the run was written", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "unknown run or bad option" },
    examples: ["npx steamharness export-run run-7f3a --project examples/assistant --output run.jsonl"],
  },
  "import-run": {
    exits: { [EXIT_CODES.success]: "the run was imported", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "a malformed file (nothing written) or bad option" },
    examples: ["npx steamharness import-run run.jsonl --postgres postgres://127.0.0.1/app"],
  },
  eval: {
    exits: { [EXIT_CODES.success]: "every case passed (with --baseline: no regression)", [EXIT_CODES.failed]: "a case failed (with --baseline: a case that passed there fails now), or an unexpected error", [EXIT_CODES.usage]: "an invalid suite or baseline, bad option, or a missing or invalid conversation project" },
    examples: ["npx steamharness eval evals/billing.json --project examples/assistant --junit eval.xml", "npx steamharness eval evals/billing.json --baseline scorecard.json --scorecard new.json"],
  },
  mcp: {
    exits: {
      [EXIT_CODES.success]: "the client closed stdin, or Ctrl-C, SIGINT or SIGTERM",
      [EXIT_CODES.failed]: "the OAuth issuer could not be reached, or an unexpected error",
      [EXIT_CODES.usage]: "bad option, missing or invalid workflow project, an --oauth-issuer without valid metadata, or (--http) the port is in use (nothing served)",
    },
    examples: ["npx steamharness mcp examples/workflow-project                       # stdio, for an MCP host", "npx steamharness mcp examples/workflow-project --http --port 3000    # Streamable HTTP on 127.0.0.1"],
  },
  chat: {
    exits: {
      [EXIT_CODES.success]: "/exit, end of input, or Ctrl-C at the prompt",
      [EXIT_CODES.failed]: UNEXPECTED,
      [EXIT_CODES.usage]: "not a conversation project, no model configured, or --conversation names a conversation that does not exist (without --new)",
    },
    examples: ["npx steamharness chat examples/assistant", "npx steamharness chat examples/assistant --conversation c-1234 # continue one"],
  },
  gateway: { exits: serving("bad option, not a conversation project or no model"), examples: ["STEAMHARNESS_GATEWAY_TOKEN=secret-token npx steamharness gateway examples/assistant --port 8787"] },
  "gateway keys": { exits: { [EXIT_CODES.success]: "help printed", [EXIT_CODES.usage]: SUBCOMMAND }, examples: ["npx steamharness gateway keys list"] },
  "gateway keys add": {
    exits: { [EXIT_CODES.success]: "the key was created (its secret printed once)", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "missing --tenant or a bad limit" },
    examples: ["npx steamharness gateway keys add --tenant team-a --budget-usd 20 --period month"],
  },
  "gateway keys list": { exits: { [EXIT_CODES.success]: "the keys were listed", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "bad option" }, examples: ["npx steamharness gateway keys list --store ./keys"] },
  "gateway keys revoke": {
    exits: { [EXIT_CODES.success]: "the key was revoked", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "no key of that id, or a bad option" },
    examples: ["npx steamharness gateway keys revoke sh_abcd1234"],
  },
  config: {
    exits: { [EXIT_CODES.success]: "help printed", [EXIT_CODES.usage]: SUBCOMMAND },
    examples: [
      "npx steamharness config show examples/assistant                  # the configurations as JSON",
      "npx steamharness config export examples/assistant -o config.json # an export document with its revision",
      "npx steamharness config import examples/assistant config.json    # replace them (refused if changed since)",
    ],
  },
  "config show": {
    exits: { [EXIT_CODES.success]: "printed", [EXIT_CODES.failed]: "the configuration server failed or refused the login (or an unexpected error)", [EXIT_CODES.usage]: "missing project, or a server URL without a credential" },
    examples: ["npx steamharness config show examples/assistant"],
  },
  "config export": {
    exits: { [EXIT_CODES.success]: "written", [EXIT_CODES.failed]: "the configuration server failed or refused the login (or an unexpected error)", [EXIT_CODES.usage]: "missing project, or a server URL without a credential" },
    examples: ["npx steamharness config export examples/assistant -o config.json"],
  },
  "config import": {
    exits: {
      [EXIT_CODES.success]: "imported",
      [EXIT_CODES.failed]: "the project changed since the document's revision (conflict), or the server failed",
      [EXIT_CODES.usage]: "missing project or file, or an invalid document (nothing written)",
    },
    examples: ["npx steamharness config import examples/assistant config.json"],
  },
  view: {
    exits: serving("bad option, or no sessions or store to show"),
    examples: ["npx steamharness view examples/assistant        # after npx steamharness chat examples/assistant", "npx steamharness view --store ./.steamharness --port 4477"],
  },
  fork: {
    exits: {
      [EXIT_CODES.success]: "forked: the fork's session id and the hazard report are printed",
      [EXIT_CODES.failed]: "the fork's session exists already (conflict), or an unexpected error",
      [EXIT_CODES.usage]: "unknown session or store, a point past the session's head, or a bad --at / --effects (nothing written)",
    },
    examples: ["npx steamharness fork <session-id> --at 12 --store ./.steamharness        # the session id as the viewer's URL shows it", "npx steamharness fork <session-id> --at turn:1 --effects recorded --json examples/assistant"],
  },
  server: {
    exits: serving("bad option, or an admin key shorter than 16 characters"),
    examples: ["STEAMHARNESS_SERVER_ADMIN_KEY=an-admin-key-of-16-chars npx steamharness server --port 8790 --sqlite ./config-server.sqlite"],
  },
  login: {
    exits: {
      [EXIT_CODES.success]: "the login was checked and saved",
      [EXIT_CODES.failed]: "the server refused the token or could not be reached",
      [EXIT_CODES.usage]: "bad URL, plain http off this machine without --insecure, or a relative --auth-dir",
    },
    examples: ["npx steamharness login --server http://127.0.0.1:8790 --token sht_… --auth-dir \"$HOME/.steamharness\""],
  },
  logout: { exits: { [EXIT_CODES.success]: "removed (or nothing was saved)", [EXIT_CODES.failed]: UNEXPECTED, [EXIT_CODES.usage]: "a relative --auth-dir" }, examples: ["npx steamharness logout --auth-dir \"$HOME/.steamharness\""] },
  "rotate-token": {
    exits: { [EXIT_CODES.success]: "rotated and saved", [EXIT_CODES.failed]: "the server refused the saved token or could not be reached (the file stays as it was)", [EXIT_CODES.usage]: "no saved account token" },
    examples: ["npx steamharness rotate-token --auth-dir \"$HOME/.steamharness\""],
  },
};

/**
 * The text `--help` prints after a command's options: its examples and its exit codes.
 *
 * @example
 * helpPageText(HELP_PAGES["runs prune"]!) // "\nExamples:\n  npx steamharness runs prune …\n\nExit codes:\n  0  pruned …"
 */
export function helpPageText(page: HelpPage): string {
  const examples = page.examples.map((example) => `  ${example}`);
  const exits = Object.entries(page.exits).map(([code, meaning]) => `  ${code}  ${meaning}`);
  return ["", "Examples:", ...examples, "", "Exit codes:", ...exits].join("\n");
}
