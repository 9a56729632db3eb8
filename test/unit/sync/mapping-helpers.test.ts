import assert from "node:assert/strict";
import { test } from "node:test";
import { htmlToText } from "../../../src/services/sync/html-to-text.js";
import { cut } from "../../../src/shared/text.js";
import { matchStage } from "../../../src/services/sync/stage-match.js";

test("job descriptions become plain text", () => {
  assert.equal(
    htmlToText("<p>We are <b>hiring</b> &amp; growing.</p><ul><li>TypeScript</li><li>Postgres</li></ul><script>x()</script>"),
    "We are hiring & growing.\n\n- TypeScript\n- Postgres",
  );
  assert.equal(htmlToText("caf&#233; &#x263A; &nbsp;ok&unknown;"), "café ☺ ok&unknown;");
  assert.equal(htmlToText(""), "");
});

test("text is cut to the field limit with an ellipsis, counting characters not bytes", () => {
  assert.equal(cut("short", 10), "short");
  assert.equal(cut("0123456789abc", 10), "012345678…");
  assert.equal([...cut("é".repeat(600), 500)].length, 500);
  assert.equal(cut(null, 10), null);
  assert.equal(cut(undefined, 10), null);
});

test("stages match by id first, then by name, case-insensitively", () => {
  const stages = [
    { id: "s1", remote_id: "1", name: "Applied", index: 0 },
    { id: "s2", remote_id: "2", name: "AI Interview", index: 1 },
    { id: "Applied", remote_id: "3", name: "Odd", index: 2 },
  ];
  assert.equal(matchStage(stages, "s2")?.id, "s2");
  assert.equal(matchStage(stages, "ai interview")?.id, "s2");
  assert.equal(matchStage(stages, "Applied")?.id, "Applied", "an id match wins over a name match");
  assert.equal(matchStage(stages, "  AI INTERVIEW ")?.id, "s2");
  assert.equal(matchStage(stages, "Offer"), null);
  assert.equal(matchStage(stages, null), null);
});
