/**
 * `steamharness audit export|verify` (GOV-7): the approval audit log of an approval store — a
 * SQLite store directory (`--store`) or a PostgreSQL database (`--postgres`). `export` writes one
 * JSON entry per line (JSONL), tenant by tenant in chain order; `verify` recomputes every chain,
 * from the store or from an exported file, and fails (exit 1) at the first changed, removed or
 * reordered entry.
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { Command } from "commander";
import { verifyAuditChain, type ApprovalAuditEntry } from "../../../domain/approvals/audit-chain.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { ApprovalStore } from "../../../ports/approval-store.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";

interface AuditFlags {
  store?: string;
  postgres?: string;
  postgresSchema?: string;
  tenant?: string;
  file?: string;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");
const invalid = (field: string, message: string) => new SteamharnessError("input_validation", `[steamharness] [audit] ${message}`, { field });

async function withStore<T>(services: SurfaceServices, flags: AuditFlags, use: (store: ApprovalStore) => Promise<T>): Promise<T> {
  if ((flags.store === undefined) === (flags.postgres === undefined)) throw invalid("--store", "give the approval store: --store <dir> or --postgres <url>");
  const store = await services.approvalStore({ directory: resolve(flags.store ?? "."), ...(flags.postgres === undefined ? {} : { postgres: flags.postgres }), ...(flags.postgresSchema === undefined ? {} : { schema: flags.postgresSchema }) });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

async function entriesOf(store: ApprovalStore, tenant: string | undefined): Promise<ApprovalAuditEntry[]> {
  const tenants = tenant === undefined ? await store.auditTenants() : [tenant];
  const all: ApprovalAuditEntry[] = [];
  for (const each of tenants) all.push(...(await store.audit(each)));
  return all;
}

function parseJsonl(text: string, file: string): ApprovalAuditEntry[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      try {
        return JSON.parse(line) as ApprovalAuditEntry;
      } catch {
        throw invalid("--file", `${file} line ${index + 1} is not JSON`);
      }
    });
}

const storeOptions = (command: Command): Command =>
  command
    .option("--store <dir>", "the SQLite store directory of the approval store (its store.sqlite)")
    .option("--postgres <url>", "the PostgreSQL database of the approval store (postgres://…)")
    .option("--postgres-schema <name>", "with --postgres: the schema (default steamharness)")
    .option("--tenant <key>", "only this tenant's chain (default every tenant)");

/**
 * Registers `audit export` and `audit verify`.
 *
 * @example
 * registerAuditCommand(program, services);
 */
export function registerAuditCommand(program: Command, services: SurfaceServices, out: (text: string) => void = (text) => void process.stdout.write(text)): void {
  const audit = program.command("audit").description("Export and verify the approval audit log (the per-tenant hash chains of governed approvals)");
  storeOptions(audit.command("export").description("Write every audit entry as one JSON line, tenant by tenant in chain order")).action(async (flags: AuditFlags) => {
    const entries = await withStore(services, flags, (store) => entriesOf(store, flags.tenant));
    out(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
  });
  storeOptions(audit.command("verify").description("Recompute the hash chains of the store (or of an exported --file); fail at the first changed, removed or reordered entry"))
    .option("--file <jsonl>", "verify this export instead of a store")
    .action(async (flags: AuditFlags) => {
      let entries: ApprovalAuditEntry[];
      if (flags.file !== undefined) {
        const file = resolve(flags.file);
        const text = await services.textFiles.read(file).catch((error: unknown) => {
          throw invalid("--file", `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
        });
        entries = parseJsonl(text, file).filter((entry) => flags.tenant === undefined || entry.tenant === flags.tenant);
      } else entries = await withStore(services, flags, (store) => entriesOf(store, flags.tenant));
      const result = verifyAuditChain(entries, sha256);
      if (!result.ok) throw new SteamharnessError("conflict", result.message, { data: { tenant: result.tenant, seq: result.seq, problem: result.problem } });
      out(`audit log verified: ${result.entries} entries in ${result.tenants} tenant chain(s)\n`);
    });
}
