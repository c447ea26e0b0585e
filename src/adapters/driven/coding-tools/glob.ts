import { SteamharnessError } from "../../../domain/errors.js";

/** A compiled glob: {@link Glob.test} runs in time linear in the subject (SEC-3). */
export interface Glob {
  /** Whether the whole of `subject` matches. */
  test(subject: string): boolean;
}

// The glob is compiled to a Thompson automaton and simulated on a set of states, never with a
// backtracking regex: `*a*a*a*a*c` against a 200-character name took 54 s as a RegExp.
type State =
  | { kind: "char"; char: string; out: number }
  | { kind: "segment"; out: number } // one character other than "/"
  | { kind: "any"; out: number } // one character other than a line terminator (RegExp's ".")
  | { kind: "split"; out: number[] }
  | { kind: "match" };
type Node = { kind: "char"; char: string } | { kind: "one" } | { kind: "star"; any: boolean } | { kind: "dirs" } | { kind: "alt"; options: Node[][] };

const LINE_TERMINATORS = new Set(["\n", "\r", "\u2028", "\u2029"]);

/** Parses `pattern` from `at` up to a `,` or `}` closing the current brace (or the end). */
function parse(pattern: string, at: number, depth: number): { seq: Node[]; end: number } {
  const seq: Node[] = [];
  let i = at;
  for (; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        const slash = pattern[i + 2] === "/";
        seq.push(slash ? { kind: "dirs" } : { kind: "star", any: true });
        i += slash ? 2 : 1;
      } else seq.push({ kind: "star", any: false });
    } else if (char === "?") seq.push({ kind: "one" });
    else if (char === "{") {
      const options: Node[][] = [];
      let next = i + 1;
      for (;;) {
        const part = parse(pattern, next, depth + 1);
        options.push(part.seq);
        if (part.end >= pattern.length) throw new SteamharnessError("input_validation", `[steamharness] [coding-tools] glob has an unclosed "{": ${pattern}`, { field: "pattern" });
        next = part.end + 1;
        if (pattern[part.end] === "}") break;
      }
      seq.push({ kind: "alt", options });
      i = next - 1;
    } else if ((char === "}" || char === ",") && depth > 0) return { seq, end: i };
    else seq.push({ kind: "char", char });
  }
  return { seq, end: i };
}

/**
 * Compiles a glob for the `find` and `grep` tools: `**` spans directories (`**\/` also matches no
 * directory), `*` and `?` stay within one segment, `{a,b}` alternates (nested too). Rejects with
 * `input_validation` for an unclosed `{`.
 *
 * @example
 * compileGlob("src/**\/*.ts").test("src/a/b.ts") // true
 */
export function compileGlob(pattern: string): Glob {
  const states: State[] = [{ kind: "match" }];
  const add = (state: State): number => states.push(state) - 1;
  const build = (seq: Node[], next: number): number => {
    for (let i = seq.length - 1; i >= 0; i--) next = buildNode(seq[i]!, next);
    return next;
  };
  const buildNode = (node: Node, next: number): number => {
    switch (node.kind) {
      case "char":
        return add({ kind: "char", char: node.char, out: next });
      case "one":
        return add({ kind: "segment", out: next });
      case "star": {
        const loop = add({ kind: "split", out: [] });
        const step = add(node.any ? { kind: "any", out: loop } : { kind: "segment", out: loop });
        (states[loop] as { out: number[] }).out.push(step, next);
        return loop;
      }
      case "dirs":
        // (?:.*\/)? — any characters ending in "/", or nothing.
        return add({ kind: "split", out: [buildNode({ kind: "star", any: true }, add({ kind: "char", char: "/", out: next })), next] });
      case "alt":
        return add({ kind: "split", out: node.options.map((option) => build(option, next)) });
    }
  };
  const start = build(parse(pattern, 0, 0).seq, 0);
  // Simulation on two lists of state ids; `seen` marks (by generation) what a list already holds.
  const seen = new Uint32Array(states.length);
  let generation = 0;
  const nextGeneration = () => {
    if (++generation === 0xffffffff) {
      seen.fill(0);
      generation = 1;
    }
  };
  const enter = (list: number[], id: number) => {
    if (seen[id] === generation) return;
    seen[id] = generation;
    const state = states[id]!;
    if (state.kind === "split") for (const out of state.out) enter(list, out);
    else list.push(id);
  };
  return {
    test(subject) {
      let current: number[] = [];
      nextGeneration();
      enter(current, start);
      for (let i = 0; i < subject.length && current.length > 0; i++) {
        const char = subject[i]!;
        const next: number[] = [];
        nextGeneration();
        for (const id of current) {
          const state = states[id]!;
          if (state.kind === "match" || state.kind === "split") continue;
          if (state.kind === "char" ? state.char === char : state.kind === "segment" ? char !== "/" : !LINE_TERMINATORS.has(char)) enter(next, state.out);
        }
        current = next;
      }
      return current.includes(0);
    },
  };
}

/**
 * Whether a workdir-relative path (with `/` separators) matches a glob.
 *
 * @example
 * matchesGlob("*.md", "docs/readme.md") // true: no slash in the pattern, the base name is matched
 */
export function matchesGlob(pattern: string, relativePath: string, compiled = compileGlob(pattern)): boolean {
  const subject = pattern.includes("/") ? relativePath : relativePath.slice(relativePath.lastIndexOf("/") + 1);
  return compiled.test(subject);
}
