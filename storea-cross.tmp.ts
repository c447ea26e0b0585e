import { countCrossings } from "./scripts/architecture-crossings.js";
const r = countCrossings(".", [{ name: "c", files: ["src/adapters/driven/sqlite/sessions/sqlite-session-store.ts"], fn: "createSqliteSessionStore" }]);
console.log(JSON.stringify(r, null, 1));
