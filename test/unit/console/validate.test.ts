import assert from "node:assert/strict";
import { test } from "node:test";
import { validateBody } from "../../../console/src/validate.js";
import { PositionUpdateSchema } from "../../../src/contracts/recruiting/positions.js";

test("the console's form check answers what the API's 422 would, in its words and locations", () => {
  assert.deepEqual(
    validateBody(PositionUpdateSchema, { passed_stage: "Offer", rejected_stage: null, min_score: 60, auto_update_stages: true }),
    [],
  );
  assert.deepEqual(validateBody(PositionUpdateSchema, { min_score: "sixty" }), [
    { loc: ["body", "min_score"], msg: "Input should be a valid integer", type: "int_type" },
  ]);
  assert.deepEqual(validateBody(PositionUpdateSchema, { min_score: 6.5 }), [
    { loc: ["body", "min_score"], msg: "Input should be a valid integer", type: "int_type" },
  ]);
  assert.deepEqual(validateBody(PositionUpdateSchema, { min_score: 2 ** 31 }), [
    { loc: ["body", "min_score"], msg: "Input should be less than or equal to 2147483647", type: "less_than_equal" },
  ]);
  assert.deepEqual(validateBody(PositionUpdateSchema, { passed_stage: "x".repeat(201) }), [
    { loc: ["body", "passed_stage"], msg: "String should have at most 200 characters", type: "string_too_long" },
  ]);
  assert.deepEqual(validateBody(PositionUpdateSchema, { state: "paused" }), [
    { loc: ["body", "state"], msg: "Input should be 'active', 'draft', 'inactive' or 'template'", type: "enum" },
  ]);
});
