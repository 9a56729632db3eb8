import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { insertCandidateWithInterview, updateCandidateColumns } from "../../../src/services/recruiting/candidates/candidates.repository.js";
import { createPosition, findPosition, updatePosition } from "../../../src/services/recruiting/positions/positions.repository.js";
import { unlinkIntegration, upsertUpstreamCandidates, upsertUpstreamPositions } from "../../../src/services/recruiting/upstream/index.js";
import { describeEachDatabase } from "../../helpers/db.js";

const BASE = "https://interview.example.test/i";
const app = (id: string, email: string, name = `Name ${id}`) => ({
  upstream_application_id: id,
  name,
  email,
  phone: "123",
  language: "en",
});

/** The functions the sync engine reuses, against the real tables, inside a transaction as it will call them. */
describeEachDatabase("recruiting repositories for the sync engine", (getDb) => {
  test("jobs upsert as positions on (org, integration, job): Hirebridge-owned fields survive", async () => {
    const { db, query } = getDb();
    const org = randomUUID();
    const [first] = await db.transaction((tx) =>
      upsertUpstreamPositions(tx, org, "int-1", [
        { upstream_job_id_id: "job-1", name: "Old name", department: "Eng" },
        // last one wins; candidate_stage is an initial value of a new position, state follows the job
        {
          upstream_job_id_id: "job-1",
          name: "Backend Engineer",
          department: "Eng",
          location: "Berlin",
          state: "active",
          candidate_stage: "Screen",
        },
      ]),
    );
    assert.ok(first);
    assert.deepEqual(
      [first.name, first.state, first.candidateStage, first.department, first.location, first.upstreamIntegrationId, first.upstreamJobIdId],
      ["Backend Engineer", "active", "Screen", "Eng", "Berlin", "int-1", "job-1"],
    );
    assert.deepEqual([first.inserted, first.changed], [true, true]);
    await updatePosition(db, org, first.id, {
      state: "inactive",
      min_score: 70,
      passed_stage: "Onsite",
      candidate_stage: "Applied",
      name: "Renamed here",
    });
    const settled = (await findPosition(db, org, first.id))!;

    const [again] = await upsertUpstreamPositions(db, org, "int-1", [
      {
        upstream_job_id_id: "job-1",
        name: "Renamed here",
        department: "Eng",
        location: "Berlin",
        state: "inactive",
        candidate_stage: "Screen",
      },
    ]);
    assert.deepEqual(
      again,
      { ...settled, inserted: false, changed: false },
      "nothing upstream-owned changed: the row (and updated_at) stay",
    );

    // The job reopens: the position's state follows it; Hirebridge's fields stay.
    const [reopened] = await upsertUpstreamPositions(db, org, "int-1", [
      {
        upstream_job_id_id: "job-1",
        name: "Renamed here",
        department: "Eng",
        location: "Berlin",
        state: "active",
        candidate_stage: "Screen",
      },
    ]);
    assert.deepEqual([reopened!.state, reopened!.changed, reopened!.candidateStage, reopened!.minScore], ["active", true, "Applied", 70]);

    const [changed] = await upsertUpstreamPositions(db, org, "int-1", [
      { upstream_job_id_id: "job-1", name: "N".repeat(150), department: null, location: "Remote", role_description: "d".repeat(600) },
    ]);
    assert.equal(changed!.id, first.id);
    assert.deepEqual(
      [
        changed!.state,
        changed!.minScore,
        changed!.passedStage,
        changed!.candidateStage,
        changed!.name.length,
        changed!.department,
        changed!.location,
        changed!.roleDescription!.length,
      ],
      ["active", 70, "Onsite", "Applied", 100, null, "Remote", 500],
    );
    assert.deepEqual([changed!.inserted, changed!.changed], [false, true]);
    assert.ok(changed!.updatedAt >= reopened!.updatedAt && changed!.updatedAt > settled.updatedAt);

    // Another org, and another integration of the same org, get their own positions.
    const [elsewhere] = await upsertUpstreamPositions(db, randomUUID(), "int-1", [{ upstream_job_id_id: "job-1", name: "Theirs" }]);
    const [otherIntegration] = await upsertUpstreamPositions(db, org, "int-2", [{ upstream_job_id_id: "job-1", name: "Second ATS" }]);
    assert.notEqual(elsewhere!.id, first.id);
    assert.notEqual(otherIntegration!.id, first.id);
    const rows = await query<{ n: number }>("select count(*)::int as n from positions where organization_id = $1", [org]);
    assert.deepEqual(rows, [{ n: 2 }]);
  });

  test("applications upsert as candidates in bulk, with interviews for the new ones only", async () => {
    const { db, query } = getDb();
    const org = randomUUID();
    const position = await createPosition(db, org, { name: "Sync target" });
    const made = (name: string, email: string, language: string, upstreamApplicationId: string | null) =>
      insertCandidateWithInterview(
        db,
        org,
        position.id,
        { name, email, phone: "9", language, tags: [], hired: false, upstreamApplicationId, shortListed: false },
        `${BASE}/${name}`,
      );
    const handMade = (await made("By hand", "hand@example.test", "fr", null))!;
    const linkedElsewhere = (await made("Linked", "linked@example.test", "en", "app-x"))!;

    const first = await db.transaction((tx) =>
      upsertUpstreamCandidates(
        tx,
        org,
        position.id,
        [
          { ...app("app-1", "one@example.test"), phone: null, tags: ["python", "python", "go"] },
          app("app-2", "HAND@example.test", "Hand Made"), // adopts the hand-made candidate
          app("app-3", "linked@example.test"), // email belongs to a candidate of another application
          app("app-4", "ONE@example.test"), // same email as app-1 within the page
        ],
        BASE,
      ),
    );
    assert.deepEqual(
      first.skipped.sort((a, b) => a.upstream_application_id.localeCompare(b.upstream_application_id)),
      [
        { upstream_application_id: "app-3", reason: "email_taken" },
        { upstream_application_id: "app-4", reason: "duplicate_email_in_page" },
      ],
    );
    const byApp = new Map(first.candidates.map((c) => [c.upstreamApplicationId, c]));
    assert.deepEqual([...byApp.keys()].sort(), ["app-1", "app-2"]);
    assert.equal(byApp.get("app-2")!.id, handMade.id);
    assert.deepEqual(
      [byApp.get("app-2")!.name, byApp.get("app-2")!.language],
      ["Hand Made", "fr"],
      "upstream owns the name, Hirebridge the language",
    );
    assert.deepEqual(
      [
        byApp.get("app-1")!.state,
        byApp.get("app-1")!.phone,
        byApp.get("app-1")!.tags,
        byApp.get("app-1")!.inserted,
        byApp.get("app-1")!.changed,
      ],
      ["new", null, ["python", "go"], true, true],
    );
    assert.deepEqual([byApp.get("app-2")!.inserted, byApp.get("app-2")!.changed], [false, true]);

    const interviews = await query<{ candidate_id: string; status: string; interview_link: string }>(
      "select candidate_id, status, interview_link from interviews where organization_id = $1 and candidate_id <> all($2::uuid[])",
      [org, [handMade.id, linkedElsewhere.id]],
    );
    assert.deepEqual(
      interviews.map((i) => [i.candidate_id, i.status]),
      [[byApp.get("app-1")!.id, "not_started"]],
    );
    assert.ok(interviews[0]!.interview_link.startsWith(`${BASE}/`));

    // A second page: app-1 changes its phone; Hirebridge's state survives; no second interview.
    await updateCandidateColumns(db, org, position.id, byApp.get("app-1")!.id, { state: "invited" });
    const second = await upsertUpstreamCandidates(
      db,
      org,
      position.id,
      [{ ...app("app-1", "one@example.test"), phone: "555", language: "de", tags: ["new"] }],
      BASE,
    );
    const c1 = second.candidates[0]!;
    assert.deepEqual(
      [c1.phone, c1.state, c1.language, c1.tags, c1.inserted, c1.changed],
      ["555", "invited", "en", ["python", "go"], false, true],
    );
    const third = await upsertUpstreamCandidates(db, org, position.id, [{ ...app("app-1", "one@example.test"), phone: "555" }], BASE);
    assert.deepEqual([third.candidates[0]!.inserted, third.candidates[0]!.changed], [false, false]);
    const count = await query<{ n: number }>("select count(*)::int as n from interviews where organization_id = $1", [org]);
    assert.deepEqual(count, [{ n: 3 }], "one each: the two made by hand and app-1; none added by the second page");
    assert.ok(linkedElsewhere.id);
  });

  test("unlinking an integration clears upstream ids of its positions and their candidates only", async () => {
    const { db, query } = getDb();
    const org = randomUUID();
    const [p1] = await upsertUpstreamPositions(db, org, "int-a", [{ upstream_job_id_id: "j1", name: "A1" }]);
    const [p2] = await upsertUpstreamPositions(db, org, "int-b", [{ upstream_job_id_id: "j1", name: "B1" }]);
    const otherOrg = randomUUID();
    const [p3] = await upsertUpstreamPositions(db, otherOrg, "int-a", [{ upstream_job_id_id: "j1", name: "Other org" }]);
    await upsertUpstreamCandidates(db, org, p1!.id, [app("a-1", "a1@example.test")], BASE);
    await upsertUpstreamCandidates(db, org, p2!.id, [app("b-1", "b1@example.test")], BASE);
    await upsertUpstreamCandidates(db, otherOrg, p3!.id, [app("a-1", "a1@example.test")], BASE);

    const counts = await db.transaction((tx) => unlinkIntegration(tx, org, "int-a"));
    assert.deepEqual(counts, { positions: 1, candidates: 1 });
    const rows = await query<{ name: string; job: string | null; integration: string | null; apps: string[] }>(
      `select p.name, p.upstream_job_id_id as job, p.upstream_integration_id as integration,
              coalesce(array_agg(c.upstream_application_id order by c.id) filter (where c.id is not null), '{}') as apps
         from positions p left join candidates c on c.position_id = p.id
        where p.id = any($1::uuid[]) group by p.id, p.name order by p.name`,
      [[p1!.id, p2!.id, p3!.id]],
    );
    assert.deepEqual(rows, [
      { name: "A1", job: null, integration: null, apps: [null] },
      { name: "B1", job: "j1", integration: "int-b", apps: ["b-1"] },
      { name: "Other org", job: "j1", integration: "int-a", apps: ["a-1"] },
    ]);
  });
});
