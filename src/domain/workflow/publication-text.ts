/**
 * The text rules of a workflow's prompts, resources and resource templates (WF-1, MCP-15):
 * `{name}` placeholders, RFC 6570 level-1 URI templates and completion from static options.
 * TypeBox-free on purpose: the MCP server uses these on every request, and loads TypeBox only
 * for argument checks.
 */

/** A `{name}` placeholder (a prompt argument or a template variable). */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The most values `completion/complete` returns (the MCP limit). */
export const MAX_COMPLETION_VALUES = 100;

/**
 * Replaces each `{name}` whose name is a key of `values` with its value; other braces stay as
 * they are (a prompt may well contain code or JSON).
 *
 * @example
 * fillPlaceholders("Hello {name}, {unknown}", { name: "Ada" }) // "Hello Ada, {unknown}"
 */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.prototype.hasOwnProperty.call(values, name) ? values[name]! : whole));
}

/**
 * The placeholder names a text uses, in order of first use.
 *
 * @example
 * placeholdersOf("{a}/{b}/{a}") // ["a", "b"]
 */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}

/**
 * Why a URI template is not RFC 6570 level 1 (only `{name}` expressions, no operators, no
 * stray braces), or `null` when it is.
 *
 * @example
 * uriTemplateProblem("test://item/{id}") // null
 * uriTemplateProblem("test://item/{+path}") // "…only {name} expressions…"
 */
export function uriTemplateProblem(template: string): string | null {
  const literal = template.replace(PLACEHOLDER, "");
  if (literal.includes("{") || literal.includes("}")) return "only {name} expressions (RFC 6570 level 1) are supported: no operators such as {+x} or {?x}, no stray braces";
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(template)) return "must start with a URI scheme (e.g. docs://)";
  const names = [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
  if (new Set(names).size !== names.length) return "names a variable twice";
  // Two expressions side by side cannot be told apart when matching a URI.
  if (/\}\{/.test(template)) return "has two expressions side by side; put a literal character between them";
  return null;
}

/**
 * Why a project-relative file path may not be used, or `null`: absolute paths, `..` segments,
 * backslashes and `.env` files (the project's secrets) are refused at load; the server checks
 * again at read time that the real path (symlinks followed) stays inside the project folder.
 *
 * @example
 * projectFileProblem("assets/logo.png") // null
 * projectFileProblem("../secret.txt") // "…must stay inside the project folder…"
 */
export function projectFileProblem(file: string): string | null {
  if (file.startsWith("/") || /^[A-Za-z]:/.test(file) || file.includes("\\")) return "must be a project-relative path with forward slashes, not an absolute path";
  const segments = file.split("/");
  if (segments.includes("..")) return "must stay inside the project folder (no '..' segments)";
  if (segments.some((segment) => segment === ".env" || segment.startsWith(".env."))) return "names a .env file, which holds the project's secrets and is never published";
  if (file.includes("\0")) return "contains a NUL character";
  return null;
}

/** The characters of a level-1 value: unreserved, or percent escapes. */
const LEVEL_1_VALUE = /^[A-Za-z0-9\-._~%]+$/;

/**
 * Matches a URI against a level-1 template: the variables' values (percent-decoded), or `null`.
 * A level-1 value is percent-encoded, so it spans no `/`, `?`, `#` or other reserved character.
 * The match runs left to right without backtracking (a value ends at the first occurrence of
 * the literal after it; the last literal ends the URI), so its cost stays linear in the URI's
 * length whatever a client sends.
 *
 * @example
 * matchUriTemplate("test://template/{id}/data", "test://template/123/data") // { id: "123" }
 * matchUriTemplate("test://template/{id}/data", "test://template/1/2/data") // null
 */
export function matchUriTemplate(template: string, uri: string): Record<string, string> | null {
  // [literal, name, literal, name, …, literal]
  const parts = template.split(PLACEHOLDER);
  if (!uri.startsWith(parts[0]!)) return null;
  let at = parts[0]!.length;
  const values: Record<string, string> = {};
  for (let index = 1; index < parts.length; index += 2) {
    const literal = parts[index + 1]!;
    const last = index + 2 >= parts.length;
    let end: number;
    if (last) end = uri.endsWith(literal) ? uri.length - literal.length : -1;
    else end = literal === "" ? -1 : uri.indexOf(literal, at);
    if (end < at) return null;
    const raw = uri.slice(at, end);
    if (!LEVEL_1_VALUE.test(raw)) return null;
    try {
      values[parts[index]!] = decodeURIComponent(raw);
    } catch {
      return null; // a malformed percent escape
    }
    at = end + literal.length;
  }
  return at === uri.length ? values : null;
}

/** What `completion/complete` answers. */
export interface CompletionValues {
  values: string[];
  /** How many options match in all. */
  total: number;
  /** Whether more match than `values` holds. */
  hasMore: boolean;
}

/**
 * The static options that start with `prefix` (case-insensitively), in declaration order, at
 * most {@link MAX_COMPLETION_VALUES}.
 *
 * @example
 * completeFromOptions(["paris", "park", "rome"], "par") // { values: ["paris", "park"], total: 2, hasMore: false }
 */
export function completeFromOptions(options: readonly string[] | undefined, prefix: string): CompletionValues {
  const wanted = prefix.toLowerCase();
  const matching = (options ?? []).filter((option) => option.toLowerCase().startsWith(wanted));
  return { values: matching.slice(0, MAX_COMPLETION_VALUES), total: matching.length, hasMore: matching.length > MAX_COMPLETION_VALUES };
}
