import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DataRetentionResponse } from "../../../src/client/index.js";
import { useDemoCli } from "./cli-harness.js";

/** `hirebridge retention show|set` against the embedded stack (the recruiting API as `serve all` wires it). */
describe("CLI: retention", () => {
  const demo = useDemoCli();

  test("show → set → show; a bad value is a usage error and changes nothing", async () => {
    const initial = await demo.cli.json<DataRetentionResponse>(["retention", "show"]);
    assert.equal(initial.deleted_integration_days, 14);
    assert.equal(initial.candidate_days_after_hire, null);
    const set = await demo.cli.json<DataRetentionResponse>(["retention", "set", "--after-rejection", "180", "--after-hire", "365"]);
    assert.deepEqual([set.candidate_days_after_rejection, set.candidate_days_after_hire], [180, 365]);
    const off = await demo.cli.json<DataRetentionResponse>(["retention", "set", "--after-hire", "off", "--deleted-integration", "3"]);
    assert.deepEqual([off.candidate_days_after_rejection, off.candidate_days_after_hire, off.deleted_integration_days], [180, null, 3]);
    const table = await demo.cli.run(["retention", "show"]);
    assert.match(table.stdout, /candidate_days_after_hire\s+off/);
    const bad = await demo.cli.run(["retention", "set", "--deleted-integration", "off"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--deleted-integration takes whole days/);
    assert.equal((await demo.cli.run(["retention", "set"])).code, 2);
    assert.equal((await demo.cli.json<DataRetentionResponse>(["retention", "show"])).deleted_integration_days, 3);
  });
});
