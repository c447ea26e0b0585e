// MCP-7: a run's id is its UTC date and 12 random hex digits; the date part is formatted once per
// day (project-runner.ts), so ids made across midnight must still name each one's own day.
import { describe, expect, it } from "@jest/globals";
import { newRunId } from "../../src/app/workflow-runs/project-runner.js";

describe("MCP-7 run ids", () => {
  it("MCP-7 each run id names the UTC day it was made on, across day boundaries and back, with fresh random digits", () => {
    const days = ["2026-08-28T23:59:59.999Z", "2026-08-29T00:00:00.000Z", "2026-08-28T12:00:00Z", "1969-12-31T23:00:00Z", "2026-08-29T10:00:00Z"];
    const ids = days.map((at) => newRunId(new Date(at)));
    expect(ids.map((id) => id.slice(0, 8))).toEqual(["20260828", "20260829", "20260828", "19691231", "20260829"]);
    for (const id of ids) expect(id).toMatch(/^\d{8}-[0-9a-f]{12}$/);
    expect(new Set(ids.map((id) => id.slice(9))).size).toBe(ids.length);
  });

  it("MCP-7 an invalid date is refused as before (no cached day stands in for it)", () => {
    newRunId(new Date("2026-08-28T10:00:00Z"));
    expect(() => newRunId(new Date(Number.NaN))).toThrow(RangeError);
  });
});
