/**
 * The `steamharness` bin. Everything lives in src/adapters/cli (a driving adapter); this file
 * only starts it, so the same code runs from the sources (`node --import tsx src/cli.ts`) and
 * from the build (`node dist/cli.js`).
 */
import { runCli } from "./adapters/cli/program.js";

await runCli(process.argv);
