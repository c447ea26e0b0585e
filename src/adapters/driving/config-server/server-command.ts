/**
 * `steamharness server` (CFG-4): runs the configuration server on SQLite (one machine) or
 * PostgreSQL; `steamharness login` / `logout` save or remove the account login the CLI uses
 * (`<auth-dir>/workflow-auth.json`, mode 0600); `steamharness rotate-token` replaces the saved
 * login's token with a new one from the server (the old one stops working).
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { Option, type Command } from "commander";
import { SERVER_ADMIN_KEY_ENV, SERVER_API_PREFIX } from "../../../domain/configuration/server-protocol.js";
import { SteamharnessError } from "../../../domain/errors.js";
import { isLoopbackHost } from "../shared/host-check.js";
import type { TextFiles } from "../../../ports/text-files.js";
import type { ServerLoginClient, SurfaceServices } from "../../../ports/surface-services.js";

/** Options of {@link runServerCommand}. */
export interface ServerCommandOptions {
  port?: number;
  host?: string;
  sqlite?: string;
  postgres?: string;
  /** The PostgreSQL schema (default `steamharness`). */
  schema?: string;
  adminKeyFile?: string;
  /** Host names (or addresses) clients may name in `Host` / `Origin` besides loopback and `host` (`--allowed-host`). */
  allowedHost?: string[];
  env?: Readonly<Record<string, string | undefined>>;
  log?: (line: string) => void;
  /** Resolves when the server should stop (default SIGINT or SIGTERM). */
  until?: Promise<void>;
}

const untilSignal = (): Promise<void> =>
  new Promise((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      done();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });

async function adminKeyOf(options: ServerCommandOptions, files: TextFiles): Promise<string | undefined> {
  if (options.adminKeyFile !== undefined) {
    const text = await files.read(options.adminKeyFile).catch((cause: unknown) => {
      throw new SteamharnessError("input_validation", `[steamharness] [config-server] cannot read --admin-key-file ${options.adminKeyFile}`, { field: "admin-key-file", cause });
    });
    return text.trim();
  }
  return (options.env ?? process.env)[SERVER_ADMIN_KEY_ENV] || undefined;
}

/**
 * Opens the storage, starts the server, prints its address, serves until stopped; `files` reads
 * `--admin-key-file`.
 *
 * @example
 * await runServerCommand({ sqlite: "/srv/steamharness/server.sqlite", port: 8790 }, services);
 */
export async function runServerCommand(options: ServerCommandOptions, services: SurfaceServices): Promise<void> {
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  if (options.sqlite !== undefined && options.postgres !== undefined) throw new SteamharnessError("input_validation", "[steamharness] [config-server] give --sqlite or --postgres, not both", { field: "postgres" });
  const adminKey = await adminKeyOf(options, services.textFiles);
  const { startConfigurationServer } = await import("./config-server.js");
  const storage = options.postgres !== undefined
    ? { postgres: options.postgres, ...(options.schema ? { schema: options.schema } : {}) }
    : { sqlite: resolve(options.sqlite ?? join(homedir(), ".steamharness", "config-server.sqlite")) };
  const accounts = await services.configurationAccounts(storage);
  try {
    const host = options.host ?? "127.0.0.1";
    const server = await startConfigurationServer({
      accounts,
      ...(adminKey === undefined ? {} : { adminKey }),
      host,
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.allowedHost === undefined ? {} : { allowedHosts: options.allowedHost }),
      onStorageFault: (error) => process.stderr.write(`steamharness server: storage fault: ${(error as Error)?.message ?? String(error)}\n`),
    });
    log(`steamharness server: configuration server at ${server.url} (${"postgres" in storage ? "PostgreSQL" : `SQLite ${storage.sqlite}`})`);
    if (adminKey === undefined) log(`warning: no admin key (${SERVER_ADMIN_KEY_ENV} or --admin-key-file): accounts cannot be created`);
    if (host !== "127.0.0.1" && host !== "::1" && host !== "localhost") log("warning: plain HTTP on a non-loopback address: put a TLS terminator in front (docs/configuration-server.md)");
    try {
      await (options.until ?? untilSignal());
    } finally {
      await server.close();
    }
  } finally {
    await accounts.close();
  }
}

const port = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) throw new SteamharnessError("input_validation", "--port must be an integer from 0 to 65535", { field: "port" });
  return parsed;
};

const absoluteDir = (flag: string) => (value: string): string => {
  if (!isAbsolute(value)) throw new SteamharnessError("input_validation", `${flag} must be an absolute directory path`, { field: flag });
  return value;
};

/** The `--auth-dir` option of `login`, `logout` and `rotate-token`. */
const authDirOption = () => new Option("--auth-dir <dir>", "where workflow-auth.json is saved (absolute; default ~/.steamharness)").argParser(absoluteDir("--auth-dir"));
const authDirOf = (flags: { authDir?: string }): string => flags.authDir ?? join(homedir(), ".steamharness");

/**
 * `steamharness rotate-token`: asks the server for a new token of the saved login's account
 * (`POST /v1/account/token` with the saved token) and saves it in place of the old one, the
 * same way `login` saves (temporary file renamed, mode 0600). Resolves with the line to print,
 * which names the account and the file, never a token. No saved token → `input_validation`.
 * Like `login` (TEN-7), it sends the token over plain `http://` off loopback only when `insecure`
 * says so: a login saved with `--insecure` does not carry that consent to every later command.
 *
 * @example
 * process.stdout.write(await rotateSavedToken("/home/me/.steamharness", services.serverLogin));
 */
export async function rotateSavedToken(authDir: string, login: ServerLoginClient, insecure = false): Promise<string> {
  const saved = await login.read(authDir);
  const file = await login.fileOf(authDir);
  if (!saved?.serverUrl || !saved.token) {
    const what = saved?.serverUrl ? "has no account token (an admin key login cannot be rotated here)" : "is missing";
    throw new SteamharnessError("input_validation", `[steamharness] [config-server-client] the saved login ${file} ${what}: run \`steamharness login --server <url> --token <token>\` first`, { field: "auth-dir" });
  }
  const serverUrl = await login.checkUrl(saved.serverUrl, "serverUrl");
  plainHttpCheck(serverUrl, insecure);
  const { account, token } = await login.call<{ account: { name: string }; token: string }>(serverUrl, saved.token, "POST", `${SERVER_API_PREFIX}/account/token`);
  try {
    await login.save(authDir, { ...saved, token });
  } catch (cause) {
    // The old token is already dead: say so, without printing the new one.
    throw new SteamharnessError("storage_failure", `[steamharness] [config-server-client] the server rotated the token of ${account.name} but ${file} could not be saved: ask the admin to rotate it again (POST ${SERVER_API_PREFIX}/account/token with the admin key and the account header)`, { cause });
  }
  return `rotated the token of ${account.name} on ${serverUrl}; saved ${file}\n`;
}

/**
 * TEN-7: the account token can rewrite every configuration of its account, so `login` does not
 * send it unencrypted across a network: a plain `http://` URL must name this machine (loopback),
 * unless `--insecure` says the user knows (then a warning on stderr).
 *
 * @example
 * plainHttpCheck("http://config.example.com", false); // throws input_validation
 */
export function plainHttpCheck(serverUrl: string, insecure: boolean): void {
  const url = new URL(serverUrl);
  if (url.protocol !== "http:" || isLoopbackHost(url.hostname)) return;
  if (!insecure) {
    throw new SteamharnessError("input_validation", `[steamharness] [config-server-client] refusing to send the account token over plain http to ${url.host}: use an https:// URL (or pass --insecure)`, { field: "server" });
  }
  process.stderr.write(`warning: the account token travels unencrypted to ${url.host} (--insecure)\n`);
}

/**
 * Registers `steamharness server`, `login`, `logout` and `rotate-token`.
 *
 * @example
 * registerServerCommands(program, services);
 */
export function registerServerCommands(program: Command, services: SurfaceServices): void {
  program
    .command("server")
    .description("run the configuration server: project configuration per account, over HTTP (SQLite or PostgreSQL)")
    .option("--port <n>", "port to listen on (default 0: a free port, printed)", port)
    .option("--host <address>", "address to listen on (default 127.0.0.1)")
    .addOption(new Option("--sqlite <file>", "SQLite database file (default ~/.steamharness/config-server.sqlite)").conflicts("postgres"))
    .addOption(new Option("--postgres <url>", "PostgreSQL connection string").conflicts("sqlite"))
    .option("--schema <name>", "PostgreSQL schema (default steamharness)")
    .option("--admin-key-file <file>", `file holding the admin key (default: ${SERVER_ADMIN_KEY_ENV})`)
    .option("--allowed-host <name>", "a Host/Origin name served besides loopback and --host, e.g. the server's public name behind a proxy (repeatable)", (value: string, previous: string[] = []) => [...previous, value])
    .action(async (flags: ServerCommandOptions) => runServerCommand(flags, services));
  program
    .command("login")
    .description("save the configuration server login (URL and account token) to <auth-dir>/workflow-auth.json (mode 0600)")
    .requiredOption("--server <url>", "the configuration server URL")
    .requiredOption("--token <token>", "the account's API token")
    .option("--insecure", "allow a plain http:// server that is not on this machine (the token travels unencrypted)")
    .addOption(authDirOption())
    .action(async (flags: { server: string; token: string; insecure?: boolean; authDir?: string }) => {
      const serverUrl = await services.serverLogin.checkUrl(flags.server, "server");
      plainHttpCheck(serverUrl, flags.insecure === true);
      // Checked before saving: a mistyped token is refused here, not at the next command.
      const { account } = await services.serverLogin.call<{ account: { accountId: string; name: string } }>(serverUrl, flags.token, "GET", "/v1/account");
      const path = await services.serverLogin.save(authDirOf(flags), { serverUrl, token: flags.token });
      process.stdout.write(`logged in to ${serverUrl} as ${account.name}; saved ${path}\n`);
    });
  program
    .command("logout")
    .description("remove the saved configuration server login")
    .addOption(authDirOption())
    .action(async (flags: { authDir?: string }) => {
      const removed = await services.serverLogin.remove(authDirOf(flags));
      process.stdout.write(removed ? "logged out\n" : "no saved login\n");
    });
  program
    .command("rotate-token")
    .description("replace the saved login's account token with a new one from the server; the old token stops working")
    .option("--insecure", "allow a plain http:// server that is not on this machine (both tokens travel unencrypted)")
    .addOption(authDirOption())
    .action(async (flags: { authDir?: string; insecure?: boolean }) => {
      process.stdout.write(await rotateSavedToken(authDirOf(flags), services.serverLogin, flags.insecure === true));
    });
}
