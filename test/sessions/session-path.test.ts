import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { chooseSessionStorage } from "../../src/domain/agent/session-choice.js";
import { NO_CONVERSATION_SEGMENT, sessionFileSegments, sessionPathSegment, sessionPathSlug } from "../../src/adapters/driven/sqlite/sessions/session-file-names.js";

// Characters no portable file name may hold (Windows is the strictest), plus control characters.
const UNSAFE = /[\\/:*?"<>|\u0000-\u001f]/;
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

describe("session file names (SES-1)", () => {
  it("SES-1 distinct keys give distinct, filesystem-safe segments of bounded length", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 300 }), (a, b) => {
        const sa = sessionPathSegment(a);
        expect(UNSAFE.test(sa)).toBe(false);
        expect(sa === "." || sa === "..").toBe(false);
        expect(utf8Bytes(sa)).toBeLessThanOrEqual(200);
        if (a !== b) expect(sa).not.toBe(sessionPathSegment(b));
        else expect(sa).toBe(sessionPathSegment(b));
      }),
      { numRuns: 500 },
    );
  });

  it("SES-1 keys that slug alike stay apart: case, spaces, dashes, Unicode forms", () => {
    const keys = ["Agent", "agent", "a b", "a-b", "a_b", "a  b", "会话 一", "会话-一", "ｆｕｌｌ", "full", "é", "e\u0301", "", " "];
    expect(new Set(keys.map(sessionPathSegment)).size).toBe(keys.length);
    expect(sessionPathSlug("My Session / 会话 1")).toBe("my-session-会话-1");
  });

  it("SES-1 a session without a conversation gets its own folder, never a conversation's", () => {
    const [folder, file] = sessionFileSegments({ sessionKey: "agent" });
    expect(folder).toBe(NO_CONVERSATION_SEGMENT);
    expect(file.endsWith(".sqlite")).toBe(true);
    for (const id of ["", "_no-conversation", "no conversation", "undefined"]) {
      expect(sessionFileSegments({ conversationId: id, sessionKey: "agent" })[0]).not.toBe(NO_CONVERSATION_SEGMENT);
    }
  });
});

describe("session storage choice (SES-6)", () => {
  it("SES-6 conversation runs on a durable session backend are durable; others stay in memory unless databasePath is given", () => {
    expect(chooseSessionStorage({ durableBackend: true, conversationId: "c1" })).toBe("durable");
    expect(chooseSessionStorage({ durableBackend: true })).toBe("memory");
    expect(chooseSessionStorage({ durableBackend: true, conversationId: "c1", hostInput: true })).toBe("memory");
    expect(chooseSessionStorage({ durableBackend: false, conversationId: "c1" })).toBe("memory");
    expect(chooseSessionStorage({ durableBackend: false, databasePath: "/s.sqlite" })).toBe("durable");
    expect(chooseSessionStorage({ durableBackend: false, databasePath: "/s.sqlite", hostInput: true })).toBe("durable");
    expect(chooseSessionStorage({ durableBackend: true, conversationId: "c1", databasePath: "" })).toBe("durable");
    expect(chooseSessionStorage({ durableBackend: true, conversationId: "", databasePath: "" })).toBe("memory");
  });
});
