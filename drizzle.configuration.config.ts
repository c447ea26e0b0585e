import { defineConfig } from "drizzle-kit";

// The project configuration store (CFG-1) is its own SQLite file under the data dir
// (`<dataDir>/configurations.sqlite`), shared by every local host, so its migrations have their
// own folder. Generate with: npx drizzle-kit generate --config drizzle.configuration.config.ts
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/adapters/driven/sqlite/configuration/drizzle-kit-schema.ts",
  out: "./drizzle/configuration",
});
