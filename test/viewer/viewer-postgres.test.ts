// VIEW-1 on PostgreSQL: `steamharness view --postgres URL` lists the sessions of a PostgreSQL
// storage from its session index rows and serves them like a SQLite store's.
import { openViewTarget } from "../../src/adapters/driving/viewer/view-run.js";
import { createViewerServer } from "../../src/compose/viewer.js";
import { createSurfaceServices } from "../../src/compose/surface-services.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { describePostgres } from "../fixtures/postgres.js";

const plan = (runId: string, i: number) => ({ eventId: `${runId}/plan/${i}`, runId, type: "plan" as const, payload: { planIndex: i, text: `step ${i}` } });

describePostgres("VIEW-1 the viewer on a PostgreSQL storage", (database) => {
  it("VIEW-1 --postgres lists the sessions newest first from the index rows, narrowed by project, and serves them", async () => {
    const schema = database.freshSchema();
    const writer = await createPostgresStorage({ connectionString: database.url, schema });
    let clock = 1_000;
    const write = async (projectId: string, conversationId: string, sessionKey: string) => {
      const store = await writer.sessions!.open({ address: { projectId, conversationId, sessionKey }, ownerId: `run-${sessionKey}`, clock: { now: () => (clock += 1000) } });
      await store.append([plan(`run-${sessionKey}`, 0)]);
      await store.close();
    };
    await write("demo", "c1", "agent");
    await write("demo", "c2", "会话 一");
    await write("other", "c3", "agent");

    const { storage, catalog } = await openViewTarget({ postgres: database.url, schema }, createSurfaceServices());
    try {
      const all = await catalog!.list();
      expect(all.map((entry) => entry.address.conversationId)).toEqual(["c3", "c2", "c1"]);
      expect(all[1]!.address).toEqual({ projectId: "demo", conversationId: "c2", sessionKey: "会话 一" });
      expect((await catalog!.list({ projectId: "demo" })).map((entry) => entry.address.conversationId)).toEqual(["c2", "c1"]);
      const viewer = await createViewerServer({ storage, catalog: catalog! });
      try {
        const response = await fetch(`http://127.0.0.1:${viewer.port}/api/projects?token=${viewer.token}`);
        expect(response.status).toBe(200);
        expect(JSON.stringify(await response.json())).toContain("会话 一");
      } finally {
        await viewer.close();
      }
    } finally {
      await storage.close();
      await writer.close();
    }
  });

  it("VIEW-1 a schema never written lists nothing, and --postgres with --store is refused", async () => {
    const { storage, catalog } = await openViewTarget({ postgres: database.url, schema: database.freshSchema() }, createSurfaceServices());
    try {
      expect(await catalog!.list()).toEqual([]);
    } finally {
      await storage.close();
    }
    await expect(openViewTarget({ postgres: database.url, store: "/tmp/x" }, createSurfaceServices())).rejects.toMatchObject({ code: "input_validation" });
  });
});
