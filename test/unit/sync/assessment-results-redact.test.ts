/**
 * The recruiter's results page (`/assessment-results/{token}`, an assessment order's result_url)
 * is a bearer link like the candidate's interview page: its token never reaches a log line,
 * however the path is spelled.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { redactUrl } from "../../../src/shared/http/redact.js";

test("the results page's token is redacted from logged URLs in every spelling", () => {
  // A word-like token (no digits, no mixed case runs) that the opaque-token heuristic alone would not catch.
  const tokens = [randomBytes(24).toString("base64url"), "resultsresultsresultsresultsabcd"];
  for (const token of tokens) {
    for (const path of [
      `/assessment-results/${token}`,
      `/Assessment-Results/${token}`,
      `//assessment-results/${token}`,
      `/./assessment-results/${token}`,
      `/assessment-results/${token}?x=1`,
      `/nowhere?next=/assessment-results/${token}`,
    ]) {
      const logged = redactUrl(path);
      assert.ok(!logged.includes(token), `${path} logged as ${logged}`);
    }
  }
  // The route's own name stays readable.
  assert.match(redactUrl(`/assessment-results/${tokens[1]}`), /^\/assessment-results\//);
});
