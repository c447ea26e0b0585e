import type { Clock } from "../../../../ports/clock.js";
import type { StoreDatabase } from "./sqlite-database.js";

/** What the SQLite adapters share: the database, the clock and whether the store was closed. */
export interface SqliteStoreContext {
  db: StoreDatabase;
  clock: Clock;
  state: { closed: boolean };
}
