/**
 * The `steamharness` bin. Everything lives in src/adapters/cli (a driving adapter); this file
 * only starts it, so the same code runs from the sources (`node --import tsx src/cli.ts`) and
 * from the build (`node dist/cli.js`).
 */
import { runCli } from "./compose/cli.js";

// A command that ended on a fatal error is over, whatever it left open (DX-8: nothing hangs).
if (await runCli(process.argv)) process.exit();
