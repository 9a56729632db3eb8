import assert from "node:assert/strict";
import { before, test } from "node:test";
import { createCandidateIntake } from "../../../src/services/recruiting/candidates/candidate-intake.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { newCandidate, unknownId, useRecruiting, type Caller } from "./recruiting-harness.js";

type Candidate = { id: string; email: string; name: string };

/**
 * POST candidate commits the creations that arrive together in one statement (candidate-intake.ts);
 * each request must still get exactly the answer it would get alone, and every 200 must be stored
 * with its interview record.
 */
describeEachDatabase("candidate creations committed together", (getDb) => {
  const h = useRecruiting(getDb);
  let me: Caller;
  let list: string;
  let positionId: string;
  before(async () => {
    me = await h().login();
    positionId = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Intake" })).json().id;
    list = `/org/${me.orgId}/positions/${positionId}/`;
  });

  const stored = (ids: string[]) =>
    h().database.query<{ id: string; created_at: Date; interviews: number }>(
      `select c.id, c.created_at, (select count(*)::int from interviews i where i.candidate_id = c.id) as interviews
         from candidates c where c.id = any($1::uuid[])`,
      [ids],
    );

  test("a burst of creations: every one answered 200 and stored with its interview, in fewer commits than requests", async () => {
    const bodies = Array.from({ length: 40 }, (_, i) => newCandidate({ name: `Burst ${i}`, tags: [`t${i}`] }));
    const answers = await Promise.all(bodies.map((b) => me.call("POST", list, b)));
    const created = answers.map((a, i) => {
      assert.equal(a.statusCode, 200, a.body);
      const c = a.json() as Candidate & { tags: string[]; position_id: string };
      assert.equal(c.email, bodies[i]!.email);
      assert.equal(c.name, bodies[i]!.name);
      assert.deepEqual(c.tags, [`t${i}`]);
      assert.equal(c.position_id, positionId);
      return c;
    });
    const rows = await stored(created.map((c) => c.id));
    assert.equal(rows.length, 40);
    for (const r of rows) assert.equal(r.interviews, 1, `candidate ${r.id} has its interview record`);
    // Rows of one transaction share its start time: fewer distinct times than requests means
    // creations were committed together.
    const commits = new Set(rows.map((r) => r.created_at.getTime())).size;
    assert.ok(commits < 40, `40 creations in ${commits} commits`);
    const listed = (await me.call("GET", list)).json() as Candidate[];
    for (const c of created)
      assert.ok(
        listed.some((l) => l.id === c.id),
        "the list shows every creation",
      );
  });

  test("in one burst: a repeated email is 409 for all but one, an unknown or foreign position is 404, the rest are stored", async () => {
    const other = await h().login();
    const foreignPosition = (await other.call("POST", `/org/${other.orgId}/position`, { name: "Not mine" })).json().id;
    const twice = newCandidate({ email: "Twice@Example.test" });
    const taken = newCandidate();
    assert.equal((await me.call("POST", list, taken)).statusCode, 200);
    const requests = [
      { path: list, body: twice, want: "twice" },
      { path: list, body: { ...newCandidate(), email: "twice@example.TEST" }, want: "twice" },
      { path: list, body: { ...newCandidate(), email: taken.email }, want: 409 },
      { path: `/org/${me.orgId}/positions/${unknownId()}/`, body: newCandidate(), want: 404 },
      { path: `/org/${me.orgId}/positions/${foreignPosition}/`, body: newCandidate(), want: 404 },
      ...Array.from({ length: 10 }, () => ({ path: list, body: newCandidate(), want: 200 })),
    ];
    const answers = await Promise.all(requests.map((r) => me.call("POST", r.path, r.body)));
    const twiceAnswers = answers.filter((_, i) => requests[i]!.want === "twice").map((a) => a.statusCode);
    assert.deepEqual(twiceAnswers.sort(), [200, 409], "one of the two same emails is created");
    answers.forEach((a, i) => {
      const want = requests[i]!.want;
      if (want === "twice") return;
      assert.equal(a.statusCode, want, `${requests[i]!.path}: ${a.body}`);
      if (want === 409) assert.match(a.json().detail, /already has this email/);
      if (want === 404) assert.equal(a.json().detail, "Position not found");
    });
    const emails = (await h().database.query<{ email: string }>(`select email from candidates where position_id = $1`, [positionId])).map(
      (r) => r.email.toLowerCase(),
    );
    assert.equal(emails.filter((e) => e === "twice@example.test").length, 1);
    assert.equal(emails.filter((e) => e === taken.email.toLowerCase()).length, 1);
    for (const [i, r] of requests.entries())
      if (r.want === 200) assert.ok(emails.includes((r.body.email as string).toLowerCase()), `request ${i} stored`);
    const foreign = await h().database.query(`select 1 from candidates where position_id = $1`, [foreignPosition]);
    assert.equal(foreign.length, 0, "nothing created in another org's position");
  });

  test("a batch Postgres refuses for one row's data fails only that row's creation", async () => {
    // The HTTP contract caps `language` at 200 characters; straight to the intake, the column's own
    // varchar(200) refuses it, which fails the batch's statement as a whole.
    const intake = createCandidateIntake(h().database);
    const values = (over: Partial<{ email: string; language: string }>) => ({
      name: "Direct",
      email: newCandidate().email,
      phone: "+1 555 0100",
      language: "en",
      tags: [],
      hired: false,
      upstreamApplicationId: null,
      shortListed: false,
      ...over,
    });
    const results = await Promise.allSettled([
      intake.create(me.orgId, positionId, values({}), "https://interview.example.test/i/a"),
      intake.create(me.orgId, positionId, values({ language: "x".repeat(201) }), "https://interview.example.test/i/b"),
      intake.create(me.orgId, positionId, values({}), "https://interview.example.test/i/c"),
      intake.create(me.orgId, positionId, values({}), "https://interview.example.test/i/d"),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ["fulfilled", "rejected", "fulfilled", "fulfilled"],
    );
    const ids = results.flatMap((r) => (r.status === "fulfilled" ? [r.value.id] : []));
    const rows = await stored(ids);
    assert.equal(rows.length, 3);
    for (const r of rows) assert.equal(r.interviews, 1);
    const links = await h().database.query<{ interview_link: string }>(
      `select interview_link from interviews where candidate_id = any($1::uuid[]) order by interview_link`,
      [ids],
    );
    assert.deepEqual(
      links.map((l) => l.interview_link),
      ["https://interview.example.test/i/a", "https://interview.example.test/i/c", "https://interview.example.test/i/d"],
      "each candidate has its own request's interview link",
    );
  });
});
