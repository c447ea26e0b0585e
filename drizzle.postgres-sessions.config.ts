import { defineConfig } from "drizzle-kit";

// PostgreSQL agent sessions (session logs, leases' data, session-host records): their own
// migrations folder and migrations table, so they never collide with the store's drizzle/postgres.
// The tables name no schema; createPostgresSessionBackend applies them to its `schema`. Generate with:
// npx drizzle-kit generate --config drizzle.postgres-sessions.config.ts
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/adapters/driven/postgres/sessions/session-schema.ts",
  out: "./drizzle/postgres-sessions",
});
