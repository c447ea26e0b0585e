// TEN-1: the principal model — one principal per remote request from a verified credential's
// ids, or `unauthorized`; tenant keys namespaced by source; never a substitute id.
import { describe, expect, it } from "@jest/globals";
import { createPrincipal, sameTenant, staticTokenPrincipal, tenantKey } from "../../src/domain/principal.js";

const oauth = (ids: { tenantId?: unknown; subject?: unknown; credentialId?: unknown }) =>
  createPrincipal({ source: "oauth", surface: "mcp-http", tenantId: "user-1", subject: "user-1", credentialId: "hosted", ...ids });

describe("TEN-1 principals", () => {
  it("TEN-1: a principal's tenant is namespaced by its source, so the same id from two sources is two tenants", () => {
    const fromOauth = oauth({});
    const fromKey = createPrincipal({ source: "key", surface: "gateway", tenantId: "user-1", subject: "k1", credentialId: "k1" });
    expect(fromOauth).toEqual({ tenant: "oauth:user-1", subject: "user-1", credentialId: "hosted", source: "oauth", surface: "mcp-http" });
    expect(fromKey.tenant).toBe("key:user-1");
    expect(sameTenant(fromOauth, fromKey)).toBe(false);
    expect(sameTenant(fromOauth, oauth({ subject: "user-2" }))).toBe(true);
    expect(tenantKey("account", "a1")).toBe("account:a1");
    expect(Object.isFrozen(fromOauth)).toBe(true);
  });

  it("TEN-1: a missing, empty, blank, non-string, over-long or control-character id is refused with unauthorized naming it — never replaced", () => {
    for (const bad of [undefined, null, "", "  ", 42, ["x"], "a".repeat(257), "line\nbreak"]) {
      expect(() => oauth({ tenantId: bad })).toThrow(expect.objectContaining({ code: "unauthorized", message: expect.stringContaining("no usable tenant") }));
      expect(() => oauth({ subject: bad })).toThrow(expect.objectContaining({ code: "unauthorized", message: expect.stringContaining("no usable subject") }));
      expect(() => oauth({ credentialId: bad })).toThrow(expect.objectContaining({ code: "unauthorized", message: expect.stringContaining("no usable credential id") }));
    }
    expect(oauth({ tenantId: "a".repeat(256) }).tenant).toBe(`oauth:${"a".repeat(256)}`);
  });

  it("TEN-1: the single static token is one principal, token:static, on every surface", () => {
    expect(staticTokenPrincipal("gateway")).toEqual({ tenant: "token:static", subject: "static", credentialId: "static-token", source: "token", surface: "gateway" });
    expect(sameTenant(staticTokenPrincipal("gateway"), staticTokenPrincipal("mcp-http"))).toBe(true);
  });
});
