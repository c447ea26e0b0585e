/**
 * A small glob matcher for the `find` and `grep` tools: `**` spans directories, `*` and `?` stay
 * within one segment, `{a,b}` alternates. Patterns without `/` match the base name.
 *
 * @example
 * globToRegExp("src/**\/*.ts").test("src/a/b.ts") // true
 */
export function globToRegExp(pattern: string): RegExp {
  let source = "";
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        const slash = pattern[i + 2] === "/";
        source += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else source += "[^/]*";
    } else if (char === "?") source += "[^/]";
    else if (char === "{") {
      depth++;
      source += "(?:";
    } else if (char === "}" && depth > 0) {
      depth--;
      source += ")";
    } else if (char === "," && depth > 0) source += "|";
    else source += char.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/**
 * Whether a workdir-relative path (with `/` separators) matches a glob.
 *
 * @example
 * matchesGlob("*.md", "docs/readme.md") // true: no slash in the pattern, the base name is matched
 */
export function matchesGlob(pattern: string, relativePath: string, compiled = globToRegExp(pattern)): boolean {
  const subject = pattern.includes("/") ? relativePath : relativePath.slice(relativePath.lastIndexOf("/") + 1);
  return compiled.test(subject);
}
