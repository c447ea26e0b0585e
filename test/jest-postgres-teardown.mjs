// jest.config.js `globalTeardown`: stops the run's PostgreSQL cluster (see ./jest-postgres.mjs).
export { stopTestPostgres as default } from "./jest-postgres.mjs";
