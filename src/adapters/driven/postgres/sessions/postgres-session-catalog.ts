import pg from "pg";
import type { Pool } from "pg";
import { eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/node-postgres";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { SessionCatalog } from "../../../../ports/session-catalog.js";
import { createSessionCatalog } from "../../kernel/session-catalog.js";
import { checkSchemaName, DEFAULT_POSTGRES_SCHEMA, postgresCall } from "../postgres-database.js";
import { boundedPoolConfig, checkStatementTimeout } from "../postgres-deadlines.js";
import { postgresSessionTables } from "./session-schema.js";

/** Options of {@link createPostgresSessionCatalog}. */
export interface PostgresSessionCatalogOptions {
  /** The pool of the database holding the session tables (the storage's own, usually); closed never. */
  pool?: Pool;
  /** Or a connection string: the catalog opens a small pool of its own and ends it on `close()`. */
  connectionString?: string;
  /** The schema of the session tables; default `"steamharness"`. */
  schema?: string;
  /** Statement timeout of the pool made here (default 30 000 ms, 0: none); see `PostgresConnectionOptions`. */
  statementTimeoutMs?: number;
}

/**
 * The session catalog of a PostgreSQL session backend (VIEW-1): one row per session from the
 * session index (`agent_sessions`), its last write time read by primary key from the event at its
 * last seq — never a scan of the logs. Newest first. A schema without session tables lists
 * nothing.
 *
 * @example
 * const catalog = createPostgresSessionCatalog({ pool, schema: "steamharness" });
 * const sessions = await catalog.list({ projectId: "demo" });
 */
export function createPostgresSessionCatalog(options: PostgresSessionCatalogOptions): SessionCatalog {
  const schema = checkSchemaName(options.schema ?? DEFAULT_POSTGRES_SCHEMA);
  const statementTimeoutMs = checkStatementTimeout(options.statementTimeoutMs);
  if (!options.pool && !options.connectionString) throw new SteamharnessError("input_validation", "createPostgresSessionCatalog needs a pool or a connectionString", { field: "pool" });
  const owned = options.pool === undefined;
  const pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: 2, ...boundedPoolConfig(statementTimeoutMs) });
  if (owned) pool.on("error", () => {});
  const db = drizzle({ client: pool });
  const { sessions, sessionEvents } = postgresSessionTables(schema);
  const parents = alias(sessions, "base_session");
  const lastAt = sql<number | null>`(select ${sessionEvents.at} from ${sessionEvents} where ${sessionEvents.sessionId} = ${sessions.id} and ${sessionEvents.seq} = ${sessions.lastSeq})`;
  return createSessionCatalog(
    {
      async rows(projectId) {
        // to_regclass has no drizzle builder: a schema never written has no session table yet.
        const exists = await pool.query<{ present: string | null }>("SELECT to_regclass($1) AS present", [`"${schema.replace(/"/g, '""')}".agent_sessions`]);
        if (exists.rows[0]?.present === null) return [];
        // A fork's parent (FORK-1): its address by primary key, from the fork's own row.
        const query = db.select({ projectId: sessions.projectId, conversationId: sessions.conversationId, sessionKey: sessions.sessionKey, createdAt: sessions.createdAt, lastAt, baseProjectId: parents.projectId, baseConversationId: parents.conversationId, baseSessionKey: parents.sessionKey, baseSeq: sessions.baseSeq }).from(sessions).leftJoin(parents, eq(parents.id, sessions.baseSessionId));
        const rows = await (projectId === undefined ? query : query.where(eq(sessions.projectId, projectId)));
        return rows.map((row) => ({ ...row, updatedAt: Number(row.lastAt ?? row.createdAt) }));
      },
      close: async () => void (owned && (await pool.end())),
    },
    postgresCall({ closed: false }),
    "postgres",
  );
}
