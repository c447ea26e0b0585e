// ARCH-11: the public face changes only by a reviewed diff. api/<entry>.api.md lists every name
// of every entry with its declaration, read from the built .d.ts (scripts/api-report.ts); this
// regenerates it and compares. CI builds before it tests (.ci/run); locally, after `npm run build`.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { API_REPORT_COMMAND, readApiReport, readCheckedInApiNames, renderApiReport } from "../../scripts/api-report.js";
import { libraryEntries } from "../../tsup.config.js";
import { newestMtime } from "../fixtures/dist-freshness.js";

/** The root's budget (issue 44 item 6): keyv's root is a handful of names; ours is what most users import. */
const ROOT_NAME_BUDGET = 150;

describe("ARCH-11 public face", () => {
  let built: ReturnType<typeof readApiReport>;

  beforeAll(() => {
    // A stale build would report yesterday's face: say so instead of a confusing diff.
    const inputs = Math.max(newestMtime("src"), statSync("tsup.config.ts").mtimeMs);
    const stale = Object.keys(libraryEntries).filter((entry) => {
      try {
        return statSync(join("dist", `${entry}.d.ts`)).mtimeMs < inputs;
      } catch {
        return true;
      }
    });
    if (stale.length > 0) throw new Error(`[steamharness] [api-report] dist/{${stale.join(",")}}.d.ts missing or older than src/: run \`npm run build\` first`);
    built = readApiReport("dist");
  }, 120_000);

  it("ARCH-11: api/<entry>.api.md of every entry matches the built .d.ts (names, values and types, with their declarations)", () => {
    const differing = Object.entries(built).filter(([entry, exports]) => {
      let checkedIn = "";
      try {
        checkedIn = readFileSync(join("api", `${entry}.api.md`), "utf8");
      } catch {
        return true;
      }
      return checkedIn !== renderApiReport(entry, exports);
    });
    const message = differing.length === 0 ? "" : `the public face changed in ${differing.map(([entry]) => `api/${entry}.api.md`).join(", ")}: review it and run \`${API_REPORT_COMMAND}\` to update the report`;
    expect(message).toBe("");
  });

  it("ARCH-11: the root entry (steamharness) holds at most 150 names, values and types", () => {
    expect(built.index!.length).toBeGreaterThan(50);
    expect(built.index!.length).toBeLessThanOrEqual(ROOT_NAME_BUDGET);
    // The checked-in report (what docs-names reads) counts the same names.
    expect(readCheckedInApiNames("api").index).toEqual(built.index!.map((item) => item.name));
  });

  it("ARCH-11: no storage family's constructor is in the root (memory, SQLite and PostgreSQL live on their subpaths)", () => {
    const storage = built.index!.map((item) => item.name).filter((name) => /^(create)?(Memory|Sqlite|Postgres)[A-Z]/.test(name));
    expect(storage).toEqual([]);
    for (const family of ["memory", "sqlite", "postgres"]) expect(built[family]!.filter((item) => item.value).length).toBeGreaterThan(3);
  });
});
