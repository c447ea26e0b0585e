// Links node_modules/steamharness to this checkout (run by `npm run build`). The example projects
// in nested folders (examples/assistant, examples/workflow-project) import "steamharness" the
// way an installed project does; Node's package self-reference covers only files whose nearest
// package.json is this package's, so those folders need the link. It resolves to dist/ through
// package.json "exports", like an install.
import { lstatSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const link = join(root, "node_modules", "steamharness");
let existing;
try {
  existing = lstatSync(link);
} catch {
  existing = undefined;
}
if (existing === undefined) {
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync("..", link, "junction");
} else if (!existing.isSymbolicLink()) {
  process.stderr.write(`link-self: ${link} exists and is not a link; left as is\n`);
}
