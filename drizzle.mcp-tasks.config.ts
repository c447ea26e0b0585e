import { defineConfig } from "drizzle-kit";

// The MCP task store (MCP-13), SQLite: `<persistent-value-store-dir>/mcp-tasks.sqlite`, its own
// migrations folder. Generate with: npx drizzle-kit generate --config drizzle.mcp-tasks.config.ts
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/adapters/driven/sqlite/mcp-tasks/drizzle-kit-schema.ts",
  out: "./drizzle/mcp-tasks",
});
