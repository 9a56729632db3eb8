import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { test } from "node:test";
import { SRC, sourceFiles } from "./source-files.js";

/** No file in src/ is longer than this many lines (issue 39): a file is read whole. */
export const MAX_FILE_LINES = 300;

/**
 * Files that may stay longer for now, path relative to src/ with the reason. Each entry must still
 * name a long file (a stale entry fails), so the list only shrinks.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  "services/webhooks-out/dispatcher.ts": "the lease-and-claim dispatcher, to be replaced by the job queue (issue 39)",
  "services/sync/sync-engine.ts": "the run loop and its checkpoint; to split with the sync work of issue 42",
  "services/recruiting/candidates/candidates.repository.ts": "to split with the erasure work of issue 41",
  "services/sync/upstream-pages.ts": "paging and its retries; to split with the queue work of issue 43",
  "services/sandbox/data/generate.ts": "the sandbox's data generator",
  "shared/upstream/upstream-client.ts": "the upstream client; to split with one Retry-After parser (issue 39)",
};

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

test(`no file in src/ is longer than ${MAX_FILE_LINES} lines (or it is allowlisted with a reason)`, () => {
  const long = new Map<string, number>();
  for (const file of sourceFiles()) {
    const lines = lineCount(readFileSync(file, "utf8"));
    if (lines > MAX_FILE_LINES) long.set(relative(SRC, file), lines);
  }
  assert.deepEqual(
    [...long].filter(([path]) => !(path in ALLOWED)).map(([path, n]) => `${path}: ${n} lines`),
    [],
  );
  const stale = Object.keys(ALLOWED).filter((path) => !long.has(path));
  assert.deepEqual(stale, [], "allowlist entries that name no long file any more: remove them");
});

test("the count is of lines as an editor shows them", () => {
  assert.equal(lineCount("a\nb\n"), 2);
  assert.equal(lineCount("a\nb"), 2);
});
