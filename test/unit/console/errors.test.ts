import assert from "node:assert/strict";
import { test } from "node:test";
import { describeError } from "../../../console/src/errors.js";
import { ApiError, AuthenticationError, ConnectionError } from "../../../src/client/index.js";

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  ApiError.fromResponse(status, body, new Headers(headers), { method: "PUT", url: "http://127.0.0.1:1/api/v1/org/x/position/y" });

test("every error the APIs answer is said in words, with what to do", () => {
  assert.match(describeError(answer(401, { detail: "Token expired" })).message, /session has ended\. Sign in again/);
  assert.match(describeError(new AuthenticationError("session_expired", "ended")).message, /Sign in again/);
  assert.equal(
    describeError(answer(403, { detail: "The access token carries no organisation" })).message,
    "You are not allowed to do this (403): The access token carries no organisation.",
  );
  assert.match(describeError(answer(404, { detail: "Position not found" })).message, /not found \(404\)/);
  assert.equal(
    describeError(answer(409, { detail: "Another position is already linked to this upstream job" })).message,
    "This conflicts with the current data (409): Another position is already linked to this upstream job. Reload and try again.",
  );
  const invalid = describeError(
    answer(422, { detail: [{ loc: ["body", "min_score"], msg: "Input should be a valid integer", type: "int_type" }] }),
  );
  assert.deepEqual(invalid.fields, [{ field: "min_score", message: "Input should be a valid integer" }]);
  assert.equal(invalid.message, "Some values were not accepted: min_score: Input should be a valid integer.");
  assert.equal(
    describeError(answer(429, { detail: "Rate limit exceeded" }, { "retry-after": "7" })).message,
    "Too many requests right now. Please wait 7 seconds and try again.",
  );
  assert.match(
    describeError(answer(502, { detail: "The upstream failed" })).message,
    /connected ATS refused or failed the request \(502\): The upstream failed/,
  );
  assert.match(describeError(answer(504, { detail: "timed out" })).message, /did not answer in time \(504\)/);
  assert.match(
    describeError(new ConnectionError({ method: "GET", url: "http://127.0.0.1:1/api/v1/integrations" })).message,
    /could not be reached/,
  );
});
