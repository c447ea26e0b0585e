import { describe, expect, it } from "@jest/globals";
import { classifyProviderFailure, statusOfErrorMessage } from "../../src/adapters/driven/providers/provider-failures.js";

describe("OUT-3 provider failure classification", () => {
  it.each([
    ["429 Rate limit reached", false, { retryable: true, kind: "recovery", status: 429 }],
    ['529 {"type":"error","error":{"type":"overloaded_error"}}', false, { retryable: true, kind: "recovery", status: 529 }],
    ["500 status code (no body)", false, { retryable: true, kind: "recovery", status: 500 }],
    ["408 Request Timeout", false, { retryable: true, kind: "recovery", status: 408 }],
    ["401 invalid x-api-key", false, { retryable: false, kind: "recovery", status: 401 }],
    ["400 prompt is too long: 210000 tokens > 200000 maximum", false, { retryable: false, kind: "recovery", status: 400 }],
    ["Connection error.", false, { retryable: true, kind: "recovery" }],
    ["Request timed out.", false, { retryable: true, kind: "recovery" }],
    ["terminated", true, { retryable: true, kind: "dropped" }],
    ["Anthropic stream ended before message_stop", true, { retryable: true, kind: "dropped" }],
    ["{}", true, { retryable: true, kind: "dropped" }],
    ['{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', true, { retryable: true, kind: "recovery" }],
    ["Error Code server_error: The server had an error", true, { retryable: true, kind: "recovery" }],
    ["Provider finish_reason: content_filter", true, { retryable: false, kind: "recovery" }],
    ["The server had an error while processing your request. Sorry about that!", true, { retryable: true, kind: "recovery" }],
  ])("%s (stream started: %s)", (message, streamStarted, expected) => {
    expect(classifyProviderFailure({ message, streamStarted })).toEqual(expected);
  });

  it("reads only a leading status code", () => {
    expect(statusOfErrorMessage("503 Service Unavailable")).toBe(503);
    expect(statusOfErrorMessage("Error 503 in upstream")).toBeUndefined();
    expect(statusOfErrorMessage("4290 tokens")).toBeUndefined();
  });
});
