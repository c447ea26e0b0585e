import { SteamharnessError, isSteamharnessError, wrapAdapterError } from "../../src/domain/errors.js";

describe("errors", () => {
  it("isSteamharnessError recognises the brand, not the class identity", () => {
    const foreign = Object.assign(new Error("x"), { [Symbol.for("steamharness.error")]: true, code: "not_found" });
    expect(isSteamharnessError(foreign)).toBe(true);
    expect(isSteamharnessError(foreign, "not_found")).toBe(true);
    expect(isSteamharnessError(foreign, "conflict")).toBe(false);
    expect(isSteamharnessError(new Error("plain"))).toBe(false);
    expect(isSteamharnessError(null)).toBe(false);
  });

  it("wrapAdapterError keeps cause and passes steamharness errors through", () => {
    const cause = new Error("disk I/O error");
    const wrapped = wrapAdapterError("sqlite", "kv set failed", cause);
    expect(wrapped.code).toBe("storage_failure");
    expect(wrapped.message).toBe("[steamharness] [sqlite] kv set failed: disk I/O error");
    expect(wrapped.cause).toBe(cause);
    const own = new SteamharnessError("input_validation", "bad", { field: "key" });
    expect(wrapAdapterError("sqlite", "x", own)).toBe(own);
    expect(own.toJSON()).toEqual({ code: "input_validation", message: "bad", field: "key" });
  });
});
