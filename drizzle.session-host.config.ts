import { defineConfig } from "drizzle-kit";

// The resident session host's record (tasks, contexts, command inbox): one SQLite file per
// conversation next to its session files, with its own migration folder.
// Generate with: npx drizzle-kit generate --config drizzle.session-host.config.ts
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/adapters/driven/sqlite/session-host/drizzle-kit-schema.ts",
  out: "./drizzle/session-host",
});
