import { defineConfig } from "drizzle-kit";

// The durable agent session schema (SES-1) has its own migration folder: every session is its own
// SQLite file, separate from the project storage database whose migrations live in drizzle/.
// Generate with: npx drizzle-kit generate --config drizzle.session.config.ts
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/adapters/driven/sqlite/sessions/drizzle-kit-schema.ts",
  out: "./drizzle/session",
});
