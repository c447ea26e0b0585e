import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { SessionCatalog } from "../../../../ports/session-catalog.js";
import { createSessionCatalog } from "../../kernel/session-catalog.js";
import { checkSchemaName, DEFAULT_POSTGRES_SCHEMA, poolOf, postgresCall, type PostgresConnectionOptions } from "../postgres-database.js";
import { postgresSessionTables } from "./session-schema.js";

/**
 * Options of {@link createPostgresSessionCatalog}: the pool of the database holding the session
 * tables (the storage's own, usually; never ended here), or a connection string (the catalog
 * opens a small pool of its own and ends it on `close()`).
 */
export interface PostgresSessionCatalogOptions extends Pick<PostgresConnectionOptions, "pool" | "connectionString" | "schema" | "statementTimeoutMs"> {}

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
  if (!options.pool && !options.connectionString) throw new SteamharnessError("input_validation", "createPostgresSessionCatalog needs a pool or a connectionString", { field: "pool" });
  const { pool, end } = poolOf(options, { max: 2 });
  const db = drizzle({ client: pool });
  const { sessions, sessionEvents } = postgresSessionTables(schema);
  const lastAt = sql<number | null>`(select ${sessionEvents.at} from ${sessionEvents} where ${sessionEvents.sessionId} = ${sessions.id} and ${sessionEvents.seq} = ${sessions.lastSeq})`;
  return createSessionCatalog(
    {
      async rows(ofProject) {
        // to_regclass has no drizzle builder: a schema never written has no session table yet.
        const exists = await pool.query<{ present: string | null }>("SELECT to_regclass($1) AS present", [`"${schema.replace(/"/g, '""')}".agent_sessions`]);
        if (exists.rows[0]?.present === null) return [];
        // A fork's parent (FORK-1): its address, from the fork's own row.
        const { projectId, conversationId, sessionKey, createdAt, baseProjectId, baseConversationId, baseSessionKey, baseSeq } = sessions;
        const query = db.select({ projectId, conversationId, sessionKey, createdAt, lastAt, baseProjectId, baseConversationId, baseSessionKey, baseSeq }).from(sessions);
        const rows = await (ofProject === undefined ? query : query.where(eq(projectId, ofProject)));
        return rows.map((row) => ({ ...row, updatedAt: Number(row.lastAt ?? row.createdAt) }));
      },
      close: end,
    },
    postgresCall({ closed: false }),
    "postgres",
  );
}
