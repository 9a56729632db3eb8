import assert from "node:assert/strict";
import { test } from "node:test";
import { isContentError, isPermanentEventError } from "../../../src/services/sync/webhooks/event-errors.js";
import { AppError, validationError } from "../../../src/shared/errors.js";
import { upstreamFailed, upstreamTimedOut } from "../../../src/shared/upstream/upstream-errors.js";

/** A driver error as pg and PGlite raise it (a SQLSTATE `code`), wrapped as Drizzle wraps it. */
const pgError = (code: string) => Object.assign(new Error("database error"), { code });
const drizzleWrapped = (cause: unknown) => new Error("Failed query: insert …", { cause });

test("content errors: SQLSTATE classes 22 and 54, at any depth of wrapping; nothing else", () => {
  assert.equal(isContentError(pgError("54000")), true, "index row too big");
  assert.equal(isContentError(drizzleWrapped(pgError("22001"))), true, "value too long");
  assert.equal(isContentError(drizzleWrapped(drizzleWrapped(pgError("22007")))), true, "bad date");
  for (const other of ["P0001", "23505", "40001", "57014", "08006", "53300"]) assert.equal(isContentError(pgError(other)), false, other);
  assert.equal(isContentError(Object.assign(new Error("x"), { code: "ECONNREFUSED" })), false);
  assert.equal(isContentError(new TypeError("x")), false);
});

test("permanent: a type or validation error on the event's data, or storage refusing its content", () => {
  // What reading a field that is not there throws, and what an invalid date throws on its way to storage.
  assert.equal(isPermanentEventError(new TypeError("Cannot read properties of undefined (reading 'organization_name')")), true);
  assert.equal(isPermanentEventError(new RangeError("Invalid time value")), true);
  assert.equal(isPermanentEventError(validationError([{ loc: ["body"], msg: "bad", type: "value_error" }])), true);
  assert.equal(isPermanentEventError(drizzleWrapped(pgError("22007"))), true);
});

test("transient: storage unavailable, the upstream failing or timing out, network TypeErrors, anything unrecognised", () => {
  assert.equal(isPermanentEventError(drizzleWrapped(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }))), false);
  assert.equal(isPermanentEventError(pgError("57014")), false, "statement timeout");
  assert.equal(isPermanentEventError(new Error("Connection terminated unexpectedly")), false);
  assert.equal(isPermanentEventError(upstreamFailed(503)), false);
  assert.equal(isPermanentEventError(upstreamFailed(429)), false);
  assert.equal(isPermanentEventError(upstreamTimedOut(5000)), false);
  assert.equal(isPermanentEventError(new AppError("UNAVAILABLE", "later")), false);
  assert.equal(isPermanentEventError(new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") })), false);
  assert.equal(isPermanentEventError(pgError("40001")), false, "serialization failure");
  assert.equal(isPermanentEventError(new Error("something else")), false);
});
