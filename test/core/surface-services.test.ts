// ARCH-6: the composition root builds one set of services per process (or per library call) and
// hands it down; there is no process-wide runtime to read, and telemetry is set when a runtime is built.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarnessRuntime } from "../../src/compose/runtime.js";
import { createSurfaceServices } from "../../src/compose/surface-services.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createNoopTelemetry } from "../../src/adapters/driven/memory/noop-telemetry.js";

const NO_OTLP = { PATH: process.env.PATH };

describe("ARCH-6 one composition root, no runtime singleton", () => {
  let dir: string;
  beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), "surface-services-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("ARCH-6 a process's services build its runtime once (the same object on every call); two services share none", async () => {
    const services = createSurfaceServices(NO_OTLP);
    const [first, second] = await Promise.all([services.runtime(), services.runtime()]);
    expect(second).toBe(first);
    expect(await services.runtime()).toBe(first);
    expect(await createSurfaceServices(NO_OTLP).runtime()).not.toBe(first);
    await services.shutdown();
  });

  it("ARCH-6 telemetry is the runtime's from when it is built: the given one, else a no-op; a later runtime never changes an earlier one", () => {
    const given = createNoopTelemetry();
    const traced = createHarnessRuntime({ telemetry: given });
    const plain = createHarnessRuntime();
    expect(traced.telemetry).toBe(given);
    expect(plain.telemetry).not.toBe(given);
    // A library factory without a runtime builds its own: no context reads a runtime another call set up.
    const storage = new MemoryStorage();
    const a = createNodeContext({ projectId: "p", storage });
    const b = createNodeContext({ projectId: "p", storage });
    expect(a.runtime).not.toBe(b.runtime);
    expect(createNodeContext({ projectId: "p", storage, runtime: traced }).runtime).toBe(traced);
  });

  it("ARCH-6 the services open a real local storage with its sessions in the given folder, and its catalog lists them", async () => {
    const services = createSurfaceServices(NO_OTLP);
    const sessionFolder = services.sessionFolderOf(join(dir, "project"));
    expect(sessionFolder).toBe(join(dir, "project", ".workflow", "agents"));
    expect(services.sessionFolderOf(join(dir, "project"), join(dir, "elsewhere"))).toBe(join(dir, "elsewhere"));
    const storage = await services.localStorage({ directory: join(dir, "store"), sessionFolder });
    try {
      await storage.kv.set({ projectId: "p" }, "k", { value: 1 });
      expect((await storage.kv.get({ projectId: "p" }, "k"))?.value).toEqual({ value: 1 });
      expect(existsSync(join(dir, "store"))).toBe(true);
      expect(storage.sessions?.kind).toBe("sqlite");
      const catalog = await services.localSessionCatalog(sessionFolder);
      expect(await catalog.list()).toEqual([]);
      await catalog.close?.();
    } finally {
      await storage.close();
    }
  });
});
