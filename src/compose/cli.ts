/** The CLI surface as the `steamharness` bin starts it (src/cli.ts): entries reach the adapters through the root. */
export { runCli } from "../adapters/driving/cli/program.js";
