import { defineConfig } from "drizzle-kit";

// The MCP task store (MCP-13), PostgreSQL: its own migrations folder and migrations table; the
// table names no schema, the store applies it to its `schema`. Generate with:
// npx drizzle-kit generate --config drizzle.postgres-mcp-tasks.config.ts
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/adapters/driven/postgres/mcp-task-schema.ts",
  out: "./drizzle/postgres-mcp-tasks",
});
