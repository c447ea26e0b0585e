/**
 * Credential detection for `remember` (CAP-6): memory outlives the conversation, so content that
 * looks like a secret is refused. Two families of rules:
 * - token formats with a recognisable shape (cloud keys, GitHub/GitLab/Slack/OpenAI/Anthropic/
 *   Stripe/npm/Hugging Face tokens, JWTs, PEM private keys, Slack webhooks, passwords in URLs,
 *   bearer headers, connection strings);
 * - assignments in config style (`password = …`, `API_KEY: …`) whose value looks like a secret
 *   rather than prose, a placeholder or an environment reference.
 * Ordinary notes about tokens and passwords ("rotate the API key monthly", "password: see the
 * vault") pass. Measured on the corpus in test/capabilities/credential-detection.test.ts.
 */

/** What was found: the rule's name, never the secret itself. */
export interface CredentialFinding {
  kind: string;
}

const TOKEN_RULES: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: "pem_private_key", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: "aws_access_key_id", pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b/ },
  { kind: "aws_secret_access_key", pattern: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}\b/i },
  { kind: "github_token", pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/ },
  { kind: "github_fine_grained_token", pattern: /\bgithub_pat_[A-Za-z0-9_]{50,255}\b/ },
  { kind: "gitlab_token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/ },
  { kind: "slack_token", pattern: /\bxox[abposr]-(?:[A-Za-z0-9]+-){1,4}[A-Za-z0-9]{6,}\b/ },
  { kind: "slack_webhook", pattern: /hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{16,}/ },
  { kind: "anthropic_key", pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}/ },
  { kind: "openai_key", pattern: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}(?:T3BlbkFJ[A-Za-z0-9_-]{10,})?/ },
  { kind: "stripe_key", pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b/ },
  { kind: "google_api_key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: "npm_token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: "huggingface_token", pattern: /\bhf_[A-Za-z0-9]{30,}\b/ },
  { kind: "sendgrid_key", pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/ },
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: "url_password", pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:[^\s/@]+@[^\s/]+/i },
  { kind: "bearer_header", pattern: /\bAuthorization\s*:\s*(?:Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{16,}/i },
  { kind: "connection_string_key", pattern: /\b(?:AccountKey|SharedAccessKey|Password|Pwd)=[^;\s]{8,}/ },
];

// `password = value`, `"api_key": "value"`, `SECRET_TOKEN=value`, `client-secret: value`.
const ASSIGNMENT =
  /\b([A-Za-z_-]*(?:password|passwd|passphrase|pwd|(?:secret|signing|encryption|master)[_-]?key|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer[_-]?token|token))["']?\s*(?::=|[:=])\s*["']?([^\s"',;]+)/gi;

const PLACEHOLDER = /^(?:<.*>|\{.*\}|\[.*\]|\$.*|%.*%|\*+|x+|\.{2,}|…|null|none|nil|undefined|true|false|redacted|changeme|example|placeholder|your[_-].*|process\.env\..*|os\.environ.*|env\(.*|secrets?\..*|vault:.*)$/i;

/**
 * The first credential-looking thing in `text`, or `null`.
 *
 * @example
 * detectCredential("deploy key: ghp_" + "a".repeat(36)) // { kind: "github_token" }
 * detectCredential("Rotate the API token every 90 days") // null
 */
export function detectCredential(text: string): CredentialFinding | null {
  for (const rule of TOKEN_RULES) if (rule.pattern.test(text)) return { kind: rule.kind };
  for (const match of text.matchAll(ASSIGNMENT)) {
    if (looksLikeSecretValue(match[2])) return { kind: "secret_assignment" };
  }
  return null;
}

/** A value in a config-style assignment that reads like a secret, not prose or a placeholder. */
function looksLikeSecretValue(raw: string): boolean {
  const value = raw.replace(/[.)]+$/, "");
  if (value.length < 8 || PLACEHOLDER.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  // A lowercase word ("rotated", "expires") is prose; secrets mix character classes or are long.
  return classes >= 2 || value.length >= 20;
}
