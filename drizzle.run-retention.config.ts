import { defineConfig } from "drizzle-kit";

// The run-retention index (SES-12), SQLite: `<agent-store-dir>/_runs.sqlite`, its own migrations
// folder. Generate with: npx drizzle-kit generate --config drizzle.run-retention.config.ts
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/adapters/driven/sqlite/run-retention/run-retention-schema.ts",
  out: "./drizzle/run-retention",
});
