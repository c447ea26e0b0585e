/**
 * Credential redaction shared by run results (MCP-7) and the stack traces printed on stderr:
 * the same secret values are replaced in both, so a stack never shows what a result hides.
 */

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

/**
 * Values of environment variables whose names look like credentials (at least 8 characters),
 * longest first so a secret containing another is redacted whole.
 *
 * @example
 * secretValues({ OPENAI_API_KEY: "sk-abcdefgh", HOME: "/root" }) // ["sk-abcdefgh"]
 */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && SECRET_NAME.test(entry[0]) && entry[1].length >= 8)
    .map(([, value]) => value);
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

/**
 * Replaces every occurrence of the given secret values (those of 4 characters or more) with
 * `[redacted]`, keeping the text's layout (lines, indentation) as it is.
 *
 * @example
 * redactSecrets("Error: token sk-123 refused\n    at run (w.mjs:3)", ["sk-123"]) // "Error: token [redacted] refused\n    at run (w.mjs:3)"
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out;
}

/**
 * An absolute POSIX path of two or more segments (`/srv/p/.env`, `/home/me/x`) starting a word:
 * after the start, whitespace, a quote, a bracket, `=` or `,` — not the path of a URL
 * (`https://host/a/b`, `steamharness://files/p/f`), whose slash follows `:` or another slash.
 */
const ABSOLUTE_PATH = /(^|[\s"'`([{=,])\/[^\s/"'`()[\]{},;]+(?:\/[^\s/"'`()[\]{},;]*)+/g;

/**
 * TEN-2: replaces every absolute path of two or more segments with `<path>`, so an error text
 * sent to a remote client names no file or folder of the server (the server's own log keeps the
 * original). A single segment (`/proc`, a JSON pointer `/doc`) stays.
 *
 * @example
 * hideAbsolutePaths("cannot open /srv/data/kv/store.db: EACCES") // "cannot open <path>: EACCES"
 */
export function hideAbsolutePaths(text: string): string {
  // A trailing `:` or `.` is the sentence's, not the path's.
  return text.replace(ABSOLUTE_PATH, (match: string, before: string) => `${before}<path>${/[:.]*$/.exec(match)![0]}`);
}
