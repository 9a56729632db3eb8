import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Candidate, Position } from "../../../src/client/index.js";
import type { PositionErasure } from "../../../src/contracts/recruiting/erasure.js";
import { oneLineError, useDemoCli } from "./cli-harness.js";

/**
 * `hirebridge positions erase` (issue 41) against the embedded stack, through the SDK's
 * `positions.erase`: it asks without --yes (and erases nothing when not confirmed), erases the
 * position with its candidates and says so by kind, and a second erasure is not found.
 */
describe("CLI: positions erase", () => {
  const demo = useDemoCli();

  const add = (positionId: string, name: string, email: string) =>
    demo.cli.json<Candidate>([
      "candidates",
      "add",
      positionId,
      "--name",
      name,
      "--email",
      email,
      "--phone",
      "+1 202 555 0102",
      "--language",
      "en",
    ]);

  test("asks first; --yes erases the position and its candidates; a second erasure is exit 4", async () => {
    const position = await demo.cli.json<Position>(["positions", "create", "--name", "Closed Position"]);
    const ada = await add(position.id, "Ada Lovelace", "ada.position-erase@example.com");
    await add(position.id, "Alan Turing", "alan.position-erase@example.com");
    const args = ["positions", "erase", "--position", position.id];

    // stdin closed: the question is not answered yes, so nothing is erased.
    const declined = await demo.cli.run(args);
    assert.equal(declined.code, 1);
    assert.match(declined.stderr, /Nothing erased: not confirmed \(pass --yes/);
    assert.equal((await demo.cli.run(["candidates", "show", position.id, ada.id])).code, 0, "still there");

    const erased = await demo.cli.json<PositionErasure>([...args, "--reason", "position closed", "--yes"]);
    assert.equal(erased.erased["positions"], 1);
    assert.equal(erased.erased["candidates"], 2);
    assert.match(erased.ats_copy, /ATS keeps its own copy/);
    assert.equal((await demo.cli.run(["positions", "show", position.id])).code, 4);
    assert.equal((await demo.cli.run(["candidates", "show", position.id, ada.id])).code, 4);

    const again = await demo.cli.run([...args, "--yes"]);
    assert.equal(again.code, 4);
    assert.match(oneLineError(again), /failed with 404: Position not found$/);

    // For people: what was erased, and the ATS's copy.
    const other = await demo.cli.json<Position>(["positions", "create", "--name", "Another Closed Position"]);
    const human = await demo.cli.run(["positions", "erase", "--position", other.id, "--yes"]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^Erased position ${other.id}:$`, "m"));
    assert.match(human.stdout, /^ {2}positions: 1$/m);
    assert.match(human.stdout, /ATS keeps its own copy/);

    const usage = await demo.cli.run(["positions", "erase", "--yes"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--position/);
  });
});
