import { defineConfig } from "drizzle-kit";

// `npx drizzle-kit generate` writes migrations for the SQLite store into ./drizzle (shipped with
// the package and applied on open). The FTS5 migration is custom: `drizzle-kit generate --custom`.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/adapters/driven/sqlite/store/drizzle-kit-schema.ts",
  out: "./drizzle",
});
