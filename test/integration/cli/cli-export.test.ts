import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Hirebridge, NotFoundError, type Candidate, type CandidateExport, type Position } from "../../../src/client/index.js";
import { oneLineError, useDemoCli } from "./cli-harness.js";

/**
 * `hirebridge candidates export` and the SDK's `candidates.export` (issue 41) against the embedded
 * stack (the recruiting API as `serve all` wires it, with the audit log): the document on stdout
 * (so `> file` keeps it) holds the candidate, the interview and its grading; each export is in the
 * audit log; an unknown candidate is exit 4 / NotFoundError.
 */
describe("CLI and SDK: candidates export", () => {
  const demo = useDemoCli();

  test("the document goes to stdout whole, the summary to stderr; the SDK answers the same document", async () => {
    const position = await demo.cli.json<Position>(["positions", "create", "--name", "Export Engineer"]);
    const ada = await demo.cli.json<Candidate>([
      "candidates",
      "add",
      position.id,
      "--name",
      "Ada Export",
      "--email",
      "ada.export@example.com",
      "--phone",
      "+44 20 7946 0001",
      "--language",
      "en",
    ]);
    const hb = new Hirebridge({
      authUrl: demo.env.authUrl,
      apiUrl: demo.env.apiUrl,
      credentials: { username: demo.env.demo.username, password: demo.env.demo.password },
    });
    await hb.interviews.update(position.id, ada.id, { status: "completed" });
    await hb.interviews.update(position.id, ada.id, { status: "graded", score: 72, feedback: "Structured answers." });

    const args = ["candidates", "export", "--position", position.id, "--candidate", ada.id];
    const human = await demo.cli.run(args);
    assert.equal(human.code, 0, human.stderr);
    const doc = JSON.parse(human.stdout) as CandidateExport;
    assert.deepEqual(
      [doc.candidate.id, doc.candidate.name, doc.candidate.email, doc.candidate.phone],
      [ada.id, "Ada Export", "ada.export@example.com", "+44 20 7946 0001"],
    );
    assert.deepEqual([doc.interview?.status, doc.interview?.score, doc.interview?.feedback], ["graded", 72, "Structured answers."]);
    assert.deepEqual(
      doc.grading_history.map((g) => [g.action, g.score_before, g.score_after]),
      [["interview.graded", null, 72]],
    );
    assert.match(human.stderr, new RegExp(`^Exported candidate ${ada.id}: 0 write-back\\(s\\), 1 grading\\(s\\)`, "m"));

    // --json: the same document.
    const json = await demo.cli.json<CandidateExport>(args);
    assert.deepEqual(json.candidate, doc.candidate);

    // The SDK: the same document, and the two exports before it in the audit log (ids only).
    const sdk = await hb.candidates.export(position.id, ada.id);
    assert.deepEqual(sdk.candidate, doc.candidate);
    assert.deepEqual(sdk.interview, doc.interview);
    const exported = sdk.audit_entries.filter((e) => e.action === "candidate.exported");
    assert.equal(exported.length, 2);
    assert.ok(exported.every((e) => e.actor.sub.length > 0 && e.resource_ids[0] === ada.id));

    await assert.rejects(hb.candidates.export(position.id, "00000000-0000-4000-8000-000000000000"), NotFoundError);
    const missing = await demo.cli.run([
      "candidates",
      "export",
      "--position",
      position.id,
      "--candidate",
      "00000000-0000-4000-8000-000000000000",
    ]);
    assert.equal(missing.code, 4);
    assert.match(oneLineError(missing), /failed with 404: Candidate not found$/);
    assert.equal(missing.stdout, "", "no document for a missing candidate");

    const usage = await demo.cli.run(["candidates", "export", "--position", position.id]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--candidate/);
  });
});
