import assert from "node:assert/strict";
import { test } from "node:test";
import { isSafeHref } from "../../../console/src/links.js";

test("the console renders only http and https links as live links", () => {
  for (const ok of ["https://rec.example/r/1", "http://127.0.0.1:8001/x", "HTTPS://Upper.example"]) assert.equal(isSafeHref(ok), true, ok);
  for (const bad of [
    "javascript:alert(1)",
    "JavaScript:alert(document.cookie)",
    " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/x",
    "/relative",
    "https://",
    "",
    null,
    undefined,
  ])
    assert.equal(isSafeHref(bad), false, String(bad));
});
