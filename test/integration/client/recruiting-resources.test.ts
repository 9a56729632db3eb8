import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ConflictError, ForbiddenError, Hirebridge, NotFoundError, ValidationError, type Candidate } from "../../../src/client/index.js";
import { startEmbeddedStack, type EmbeddedStack } from "./embedded-stack.js";

/** Every recruiting API operation through the SDK, against the embedded stack as `npm start` runs it. */
describe("SDK: recruiting API resources", () => {
  let env: EmbeddedStack;
  let hb: Hirebridge;
  before(async () => {
    env = await startEmbeddedStack();
    hb = new Hirebridge({
      authUrl: env.authUrl,
      apiUrl: env.apiUrl,
      credentials: { username: env.demo.username, password: env.demo.password },
    });
  });
  after(() => env.close());

  test("orgId is the token's organisation, asked once", async () => {
    assert.equal(await hb.orgId(), env.demo.orgId);
  });

  test("positions: create with the server's defaults, get, partial update, list and filter", async () => {
    const created = await hb.positions.create({ name: "Data Engineer", department: "Data", min_score: 70 });
    assert.equal(created.state, "draft");
    assert.deepEqual(created.accepted_languages, []);
    assert.equal(created.auto_update_stages, false);
    assert.equal(created.min_score, 70);
    assert.deepEqual(await hb.positions.get(created.id), created);

    const updated = await hb.positions.update(created.id, { state: "active", location: "Berlin" });
    assert.equal(updated.state, "active");
    assert.equal(updated.location, "Berlin");
    assert.equal(updated.department, "Data", "fields not sent stay as they were");

    const { items } = await hb.positions.list({ state: "active" });
    assert.ok(items.some((p) => p.id === created.id));
    assert.ok(items.every((p) => p.state === "active"));
  });

  test("positions.iterate walks every page of limit/cursor", async () => {
    const names = Array.from({ length: 5 }, (_, i) => `Paged ${i}`);
    for (const name of names) await hb.positions.create({ name, state: "template" });
    const seen: string[] = [];
    for await (const p of hb.positions.iterate({ state: "template", pageSize: 2 })) seen.push(p.name);
    assert.deepEqual(seen, names);
    const firstPage = await hb.positions.list({ state: "template", limit: 2 });
    assert.equal(firstPage.items.length, 2);
    assert.equal(typeof firstPage.next_cursor, "string");
  });

  test("candidates: create, list, get, update, bulk update; duplicate email is a ConflictError", async () => {
    const position = await hb.positions.create({ name: "Backend Engineer" });
    const ada = await hb.candidates.create(position.id, {
      name: "Ada Lovelace",
      email: "ada@example.com",
      phone: "+44 20 7946 0000",
      language: "en",
      tags: ["python"],
    });
    assert.equal(ada.position_id, position.id);
    assert.equal(ada.organization_id, env.demo.orgId);
    assert.equal(ada.state, "new");
    const alan = await hb.candidates.create(position.id, {
      name: "Alan Turing",
      email: "alan@example.com",
      phone: "+44 1",
      language: "en",
    });

    assert.deepEqual(
      (await hb.candidates.list(position.id)).map((c: Candidate) => c.email),
      ["ada@example.com", "alan@example.com"],
    );
    assert.deepEqual(await hb.candidates.get(position.id, ada.id), ada);

    const shortListed = await hb.candidates.update(position.id, ada.id, { short_listed: true });
    assert.equal(shortListed.short_listed, true);
    assert.deepEqual(shortListed.tags, ["python"]);

    const bulk = await hb.candidates.bulkUpdate(position.id, [
      { id: ada.id, state: "invited" },
      { id: alan.id, state: "rejected", hired: false },
    ]);
    assert.deepEqual(
      bulk.map((c) => [c.id, c.state]).sort(),
      [
        [ada.id, "invited"],
        [alan.id, "rejected"],
      ].sort(),
    );

    await assert.rejects(
      hb.candidates.create(position.id, { name: "Ada again", email: "ada@example.com", phone: "+1", language: "en" }),
      ConflictError,
    );
  });

  test("interview: created with the candidate, moved along its transitions; a forbidden one is a ConflictError", async () => {
    const position = await hb.positions.create({ name: "Interviewed" });
    const c = await hb.candidates.create(position.id, { name: "Grace Hopper", email: "grace@example.com", phone: "+1 2", language: "en" });
    const interview = await hb.interviews.get(position.id, c.id);
    assert.equal(interview.status, "not_started");
    assert.equal(interview.candidate, c.id);
    assert.match(interview.interview_link ?? "", /^http/);

    await hb.interviews.update(position.id, c.id, { status: "completed", conversation_id: "conv-1" });
    const graded = await hb.interviews.update(position.id, c.id, { status: "graded", score: 88, feedback: "Structured and clear." });
    assert.equal(graded.status, "graded");
    assert.equal(graded.score, 88);
    const after = await hb.candidates.get(position.id, c.id);
    assert.equal(after.score, 88);
    assert.equal(after.feedback, "Structured and clear.");

    await assert.rejects(hb.interviews.update(position.id, c.id, { status: "not_started" }), ConflictError);
  });

  test("validation failures are ValidationError with the server's detail list", async () => {
    const err = await hb.positions.create({ name: "", min_score: 2 ** 31 }).catch((e: unknown) => e);
    assert.ok(err instanceof ValidationError);
    assert.deepEqual(err.detail.map((d) => d.loc.join(".")).sort(), ["body.min_score", "body.name"]);
  });

  test("an unknown position is NotFoundError; another organisation's paths are ForbiddenError", async () => {
    await assert.rejects(hb.positions.get("00000000-0000-4000-8000-000000000000"), NotFoundError);
    const elsewhere = new Hirebridge({
      authUrl: env.authUrl,
      apiUrl: env.apiUrl,
      orgId: "11111111-1111-4111-8111-111111111111",
      credentials: { username: env.demo.username, password: env.demo.password },
    });
    await assert.rejects(elsewhere.positions.list(), ForbiddenError);
  });
});
