import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Candidate, Position } from "../../../src/client/index.js";
import type { CandidateErasure } from "../../../src/contracts/recruiting/erasure.js";
import { oneLineError, useDemoCli } from "./cli-harness.js";

/**
 * `hirebridge candidates erase` (issue 41) against the embedded stack (the recruiting API as
 * `serve all` wires it), through the SDK's `candidates.erase`: it asks without --yes (and erases
 * nothing when not confirmed), says what was erased and that the ATS keeps its copy, and a second
 * erasure is not found.
 */
describe("CLI: candidates erase", () => {
  const demo = useDemoCli();

  const add = (positionId: string, email: string) =>
    demo.cli.json<Candidate>([
      "candidates",
      "add",
      positionId,
      "--name",
      "Grace Hopper",
      "--email",
      email,
      "--phone",
      "+1 202 555 0101",
      "--language",
      "en",
    ]);

  test("asks first; --yes erases and answers by kind; a second erasure is exit 4", async () => {
    const position = await demo.cli.json<Position>(["positions", "create", "--name", "Erasure Engineer"]);
    const grace = await add(position.id, "grace.erase@example.com");
    const args = ["candidates", "erase", "--position", position.id, "--candidate", grace.id];

    // stdin closed: the question is not answered yes, so nothing is erased.
    const declined = await demo.cli.run(args);
    assert.equal(declined.code, 1);
    assert.match(declined.stderr, /Nothing erased: not confirmed \(pass --yes/);
    assert.equal((await demo.cli.run(["candidates", "show", position.id, grace.id])).code, 0, "still there");

    const erased = await demo.cli.json<CandidateErasure>([...args, "--reason", "data subject request", "--yes"]);
    assert.equal(erased.erased["candidates"], 1);
    assert.equal(erased.erased["interviews"], 1);
    assert.match(erased.ats_copy, /ATS keeps its own copy/);
    const gone = await demo.cli.run(["candidates", "show", position.id, grace.id]);
    assert.equal(gone.code, 4);

    const again = await demo.cli.run([...args, "--yes"]);
    assert.equal(again.code, 4);
    assert.match(oneLineError(again), /failed with 404: Candidate not found$/);

    // For people: what was erased, and the ATS's copy.
    const other = await add(position.id, "grace.human@example.com");
    const human = await demo.cli.run(["candidates", "erase", "--position", position.id, "--candidate", other.id, "--yes"]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^Erased candidate ${other.id}:$`, "m"));
    assert.match(human.stdout, /^ {2}candidates: 1$/m);
    assert.match(human.stdout, /ATS keeps its own copy/);

    const usage = await demo.cli.run(["candidates", "erase", "--position", position.id, "--yes"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--candidate/);
  });
});
