import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { PACKAGE_DIST_IS_FRESH } from "../fixtures/dist-freshness.js";
import { runToCompletion } from "../fixtures/run-command.js";

// DX-2: type-level tests. tsc (the project's TypeScript) checks the fixtures under
// test/types/fixtures as a project importing "steamharness" would: `pass/` must compile, and each
// file of `fail/` must fail with exactly the diagnostics its `// expect-error TSnnnn: text`
// comments name, on those lines.
//
// "steamharness" is the package's declarations (dist/index.d.ts through package.json "exports",
// what a project gets) when dist/ is fresh, as CI builds it before the tests; otherwise the
// sources (tsconfig.sources.json), so an edit not built yet is what the fixtures meet. Checking
// the sources themselves is `npm run typecheck`'s job (CI runs it before the tests): against the
// declarations, this check costs a fifth of the CPU (ARCH-12).

const root = resolve(".");
const here = join(root, "test/types");
const against = PACKAGE_DIST_IS_FRESH ? "the package's declarations" : "the sources (dist/ is older)";

interface Diagnostic {
  file: string;
  line: number;
  code: string;
  text: string;
}

/**
 * The main project and the regression project, as `tsc -p` would check each, in one process
 * (test/fixtures/tsc-passes.mjs: TypeScript and the shared declarations load once).
 */
async function runTsc(projects: string[]): Promise<Array<{ status: number | null; output: string }>> {
  const passes = projects.map((project) => ({ name: project, args: ["-p", project] }));
  const ran = await runToCompletion(process.execPath, [join(root, "test/fixtures/tsc-passes.mjs"), JSON.stringify(passes)], { cwd: root, timeoutMs: 570_000 });
  if (ran.status !== 0) throw new Error(`test/fixtures/tsc-passes.mjs failed (${ran.status ?? ran.signal}): ${ran.stderr}`);
  return (JSON.parse(ran.stdout) as Array<{ status: number; stdout: string }>).map(({ status, stdout }) => ({ status, output: stdout }));
}

/** tsc's `--pretty false` output: `file(line,col): error TSnnnn: message`, continuation lines indented. */
function parseDiagnostics(output: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const line of output.split("\n")) {
    const head = /^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line);
    if (head) diagnostics.push({ file: relative(root, resolve(root, head[1]!)), line: Number(head[2]), code: head[3]!, text: head[4]! });
    else if (line.trim() !== "" && diagnostics.length > 0) diagnostics[diagnostics.length - 1]!.text += `\n${line.trim()}`;
  }
  return diagnostics;
}

function fixtures(folder: string): string[] {
  return readdirSync(join(here, "fixtures", folder))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => relative(root, join(here, "fixtures", folder, name)));
}

function linesMatching(file: string, pattern: RegExp): Array<{ line: number; match: RegExpExecArray }> {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((text, index) => {
      const match = pattern.exec(text);
      return match ? [{ line: index + 1, match }] : [];
    });
}

describe("DX-2 typed workflows (tsc on fixtures)", () => {
  let diagnostics: Diagnostic[] = [];
  let status: number | null = null;
  let output = "";
  let regressed: { status: number | null; output: string } | undefined;

  beforeAll(async () => {
    let main: { status: number | null; output: string };
    [main, regressed] = await runTsc([join(here, PACKAGE_DIST_IS_FRESH ? "tsconfig.json" : "tsconfig.sources.json"), join(here, "tsconfig.regressed.json")]);
    ({ status, output } = main);
    diagnostics = parseDiagnostics(output);
  }, 600_000);

  it(`DX-2: tsc reports only fixture diagnostics (${against} and the harness compile)`, () => {
    expect(status).not.toBeNull();
    const elsewhere = diagnostics.filter((d) => !d.file.startsWith("test/types/fixtures/"));
    expect(elsewhere).toEqual([]);
    // Every diagnostic line was parsed (nothing like a config error slipped through unparsed).
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(output.split("\n").filter((line) => /error TS\d+/.test(line)).length).toBe(diagnostics.length);
  });

  it("DX-2: the must-compile fixtures compile (inferred params, userInput results, file values, @ts-expect-error lines all used)", () => {
    const pass = fixtures("pass");
    expect(pass.length).toBeGreaterThanOrEqual(2);
    expect(diagnostics.filter((d) => pass.includes(d.file))).toEqual([]);
  });

  it.each(fixtures("fail").map((file) => [file]))("DX-2: %s does not compile, with the expected diagnostics", (file) => {
    const expected = linesMatching(file, /\/\/ expect-error (TS\d+): (.+)$/).map(({ line, match }) => ({ line, code: match[1]!, fragment: match[2]!.trim() }));
    expect(expected.length).toBeGreaterThan(0);
    const found = diagnostics.filter((d) => d.file === file);
    for (const want of expected) {
      const hit = found.find((d) => d.line === want.line && d.code === want.code && d.text.includes(want.fragment));
      if (!hit) throw new Error(`${file}:${want.line}: expected ${want.code} "${want.fragment}", tsc reported:\n${found.map((d) => `  ${d.line} ${d.code} ${d.text}`).join("\n") || "  nothing"}`);
    }
    expect(found.map((d) => `${d.line} ${d.code}`).sort()).toEqual(expected.map((e) => `${e.line} ${e.code}`).sort());
  });

  it("DX-2: the fixtures catch a regression: typed as `any`, every @ts-expect-error of the must-compile fixtures goes unused", () => {
    expect(regressed!.status).not.toBe(0);
    const found = parseDiagnostics(regressed!.output);
    const directives = fixtures("pass").flatMap((file) => linesMatching(file, /^\s*\/\/ @ts-expect-error/).map(({ line }) => `${file}:${line}`));
    expect(directives.length).toBeGreaterThanOrEqual(8);
    const unused = found.filter((d) => d.code === "TS2578").map((d) => `${d.file}:${d.line}`);
    expect(unused.sort()).toEqual(directives.sort());
    // The type equalities fail too.
    expect(found.filter((d) => d.code === "TS2345" && d.text.includes("'true' is not assignable to parameter of type 'false'")).length).toBeGreaterThanOrEqual(6);
  });
});
