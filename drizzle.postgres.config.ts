import { defineConfig } from "drizzle-kit";

// The PostgreSQL store (steamharness/postgres): stores and project configurations in one schema.
// The tables name no schema, so the migrations apply to the schema `search_path` names when
// `createPostgresStorage` migrates (its `schema` option). Generate with:
// npx drizzle-kit generate --config drizzle.postgres.config.ts
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/adapters/driven/postgres/schema.ts",
  out: "./drizzle/postgres",
});
