// CFG-4: the configuration contract suite against the HTTP client adapter talking to a real
// `steamharness server` child process, on SQLite and on PostgreSQL; raw reads (inspect) go
// straight to the server's database, keyed by the account.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { runProjectConfigurationStoreContract } from "../../src/testing/project-configuration-store.contract.js";
import { cleanup, tempDir } from "../cli/helpers.js";
import { describePostgres, quoteIdentifier } from "../fixtures/postgres.js";
import { createAccount, startServerProcess, type ServerProcess } from "./server-process.js";

type Row = { revision: number; deleted_at: number | null; values: string };
const shape = (row: Row | undefined) => (row ? { revision: Number(row.revision), deleted: row.deleted_at !== null, values: JSON.parse(row.values) } : null);

describe("CFG-4 configuration contract over a real steamharness server on SQLite", () => {
  let dir = "";
  let server: ServerProcess;
  let account: { accountId: string; token: string };
  beforeAll(async () => {
    dir = await tempDir("sh-cfg-server-");
    server = await startServerProcess(["--sqlite", join(dir, "server.sqlite")]);
    account = await createAccount(server.url, "contract");
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await cleanup(dir);
  });

  runProjectConfigurationStoreContract({ describe, it, expect }, () => ({
    store: createHttpProjectConfigurationStore({ url: server.url, credential: { token: account.token } }),
    inspect: {
      async configuration(projectId, configurationId) {
        const client = new Database(join(dir, "server.sqlite"), { readonly: true, fileMustExist: true });
        try {
          const row = client
            .prepare("SELECT revision, deleted_at, \"values\" FROM configurations WHERE account_id = ? AND project_id = ? AND configuration_id = ?")
            .get(account.accountId, projectId, configurationId) as Row | undefined;
          return shape(row);
        } finally {
          client.close();
        }
      },
    },
  }));
});

describePostgres("CFG-4 configuration contract over a real steamharness server on PostgreSQL", (database) => {
  let server: ServerProcess;
  let account: { accountId: string; token: string };
  const schema = database.freshSchema();
  beforeAll(async () => {
    server = await startServerProcess(["--postgres", database.url, "--schema", schema]);
    account = await createAccount(server.url, "contract");
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
  });

  runProjectConfigurationStoreContract({ describe, it, expect }, () => ({
    store: createHttpProjectConfigurationStore({ url: server.url, credential: { token: account.token } }),
    inspect: {
      async configuration(projectId, configurationId) {
        const { rows } = await database.raw.query<Row>(
          `SELECT revision, deleted_at, "values" FROM ${quoteIdentifier(schema)}.configurations WHERE account_id = $1 AND project_id = $2 AND configuration_id = $3`,
          [account.accountId, projectId, configurationId],
        );
        return shape(rows[0]);
      },
    },
  }));
});
