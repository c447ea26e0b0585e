// The credential-detection corpus (CAP-6). Secrets are generated here with the real formats and
// a seeded generator — no real secret is copied anywhere. Benign notes talk about tokens,
// passwords and keys without containing one.
let seed = 0x5eed;
function random(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const B64 = ALNUM + "+/";
const B64URL = ALNUM + "-_";
function pick(alphabet: string, n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}
function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}
function pem(label: string): string {
  const lines = Array.from({ length: 5 }, () => pick(B64, 64)).join("\n");
  return `-----BEGIN ${label}-----\n${lines}\n-----END ${label}-----`;
}

export function secretCorpus(): string[] {
  const jwt = `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(`{"sub":"${pick(DIGITS, 10)}","name":"Test"}`)}.${pick(B64URL, 43)}`;
  return [
    `deploy uses AKIA${pick(UPPER + DIGITS, 16)}`,
    `temporary creds ASIA${pick(UPPER + DIGITS, 16)} from STS`,
    `aws_secret_access_key = ${pick(B64, 40)}`,
    `AWS_SECRET_ACCESS_KEY: "${pick(B64, 40)}"`,
    `my token is ghp_${pick(ALNUM, 36)}`,
    `oauth: gho_${pick(ALNUM, 36)}`,
    `app token ghs_${pick(ALNUM, 36)}`,
    `token: ghu_${pick(ALNUM, 36)}`,
    `github_pat_${pick(ALNUM, 22)}_${pick(ALNUM, 59)}`,
    `gitlab: glpat-${pick(ALNUM + "-_", 20)}`,
    `slack bot xoxb-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick(ALNUM, 24)}`,
    `xoxp-${pick(DIGITS, 12)}-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick(HEX, 32)}`,
    `alerts go to https://hooks.slack.com/services/T${pick(UPPER + DIGITS, 8)}/B${pick(UPPER + DIGITS, 10)}/${pick(ALNUM, 24)}`,
    `OPENAI key sk-${pick(ALNUM, 48)}`,
    `export OPENAI_API_KEY=sk-proj-${pick(B64URL, 74)}T3BlbkFJ${pick(B64URL, 74)}`,
    `sk-svcacct-${pick(B64URL, 60)}`,
    `anthropic: sk-ant-api03-${pick(B64URL, 93)}AA`,
    `stripe live sk_live_${pick(ALNUM, 24)}`,
    `restricted rk_test_${pick(ALNUM, 24)}`,
    `maps key AIza${pick(B64URL, 35)}`,
    `npm publish token npm_${pick(ALNUM, 36)}`,
    `hf_${pick(LOWER + UPPER, 34)} for the model hub`,
    `SG.${pick(B64URL, 22)}.${pick(B64URL, 43)}`,
    `session jwt ${jwt}`,
    `Authorization: Bearer ${jwt}`,
    pem("RSA PRIVATE KEY"),
    pem("EC PRIVATE KEY"),
    pem("OPENSSH PRIVATE KEY"),
    pem("PRIVATE KEY"),
    pem("ENCRYPTED PRIVATE KEY"),
    `db: postgres://app:${pick(ALNUM, 16)}@db.internal:5432/main`,
    `mysql://admin:S3cr3t!${pick(DIGITS, 4)}@10.0.0.5:3306/shop`,
    `clone https://ci-bot:${pick(ALNUM, 32)}@github.com/acme/app.git`,
    `redis://:${pick(ALNUM, 20)}@cache:6379/0`,
    `password=Tr0ub4dor&${pick(DIGITS, 2)}`,
    `DB_PASSWORD: "xK9#mP2$vL${pick(DIGITS, 3)}"`,
    `{"api_key": "${pick(HEX, 32)}"}`,
    `SECRET_KEY = 'django-insecure-${pick(LOWER + DIGITS + "!@#", 40)}'`,
    `client_secret: ${pick(ALNUM, 32)}`,
    `Authorization: Bearer ${pick(ALNUM, 40)}`,
    `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${pick(B64, 86)}==;EndpointSuffix=core.windows.net`,
    `STRIPE_SECRET=sk_test_${pick(ALNUM, 24)}`,
    `auth_token = ${pick(HEX, 32)}`,
    `MAILGUN_API_KEY=key-${pick(HEX, 32)}`,
    `passwd: correcthorsebatterystaple${pick(LOWER, 4)}`,
    `Server=db;Database=app;User Id=sa;Password=${pick(ALNUM, 14)};`,
  ];
}

export const BENIGN_NOTES: readonly string[] = [
  "Rotate the API key every 90 days and store it in the vault.",
  "The password must be at least 12 characters long.",
  "Token usage for the last run was 12,345 tokens.",
  "Set OPENAI_API_KEY in your environment before running the demo.",
  "password: see 1Password entry 'staging db'",
  "api_key = process.env.OPENAI_API_KEY",
  "token = ${GITHUB_TOKEN}",
  "password: <your password here>",
  "The JWT has three parts: header, payload and signature.",
  "Use `Authorization: Bearer <token>` when calling the API.",
  "GitHub tokens start with ghp_ and are 40 characters long.",
  "AWS access keys begin with AKIA; never paste them into notes.",
  "Private keys in PEM format start with a BEGIN line; never paste them here.",
  "max_tokens = 4096 for the summariser",
  "tokenizer: cl100k_base",
  "password_min_length = 12",
  "session timeout: token expires after 3600 seconds",
  "secret: the plan is to launch in March",
  "secret_santa_budget = 20 dollars",
  "Our wifi password is on the fridge.",
  "refresh_token rotation is enabled (refresh_token_ttl=30d)",
  "auth_token: stored in Keychain under 'deploy'",
  "User prefers pnpm over npm; npm_config_cache lives on /tmp",
  "The staging URL is https://staging.example.com:8443/login",
  "Email alice@example.com about the password reset flow",
  "Clone with ssh://git@github.com/acme/app.git using your SSH key",
  "API key format: sk-... (never commit it)",
  "Bearer tokens are sent in the Authorization header.",
  "pk_live keys are publishable; sk_live keys are secret",
  "token budget: 200000 tokens per day",
  "Set PASSWORD_HASH_ROUNDS=12 in production",
  "The password is 'hunter2'... just kidding, that's the classic joke",
  "Keys live in AWS Secrets Manager; the app reads them at boot.",
  "client_secret: (ask Dana, it is not in the repo)",
  "api_key: REDACTED",
  "password = ********",
  "token=xxxxxxxxxxxx",
  "The access_token field in the OAuth response is short-lived.",
  "api_key: your-api-key-here",
  "secret = os.environ['SECRET']",
  "password: changeme is the default and must be replaced",
  "Our token count went from 1.2M to 800k after the prompt change.",
  "Commit 3f9c2ab fixed the token refresh bug.",
  "sha256 of the release: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  "Project UUID 123e4567-e89b-12d3-a456-426614174000",
  "Meeting notes: discussed the password policy and the SSO rollout.",
  "The eyJ prefix means base64 JSON, as in JWT headers.",
  "-----BEGIN PUBLIC KEY----- blocks are fine to share",
  "用户的密码策略：至少 12 位，令牌每 90 天轮换一次。",
  "Remember: the deploy key is managed by the platform team, ask them for access.",
];
