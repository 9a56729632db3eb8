import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { insertCandidateWithInterview } from "../../../src/services/recruiting/candidates/candidates.repository.js";
import { createPosition } from "../../../src/services/recruiting/positions/positions.repository.js";
import { writeRecordedPage } from "../../../src/services/recruiting/upstream/upstream-candidates.repository.js";
import { createSyncRun, findSyncRun, startSyncRun } from "../../../src/services/sync/sync-runs.repository.js";
import pg from "pg";
import { describeEachDatabase, TEST_DATABASE_URL, untilWaitingForLock } from "../../helpers/db.js";

const BASE = "https://interview.example.test/i";

/** A page's candidates and its record in one statement (the sync engine's page write), against the real tables. */
describeEachDatabase("a page written with its record in one statement", (getDb, kind) => {
  test("it commits the page with the run's counts and resume point, writes nothing when an email needs sorting out or the run stopped, and ends the run on its last page", async () => {
    const { db, query } = getDb();
    const org = randomUUID();
    const integrationId = `int-${randomUUID()}`;
    const position = await createPosition(db, org, { name: "Sync target" });
    const handMade = await insertCandidateWithInterview(
      db,
      org,
      position.id,
      {
        name: "By hand",
        email: "hand@example.test",
        phone: "9",
        language: "fr",
        tags: [],
        hired: false,
        upstreamApplicationId: null,
        shortListed: false,
      },
      `${BASE}/by-hand`,
    );
    const queued = await createSyncRun(db, { integrationId, orgId: org, model: "applications", type: "FULL", trigger: "test" });
    const started = new Date(Date.now() - 60_000);
    let run = await startSyncRun(db, queued, started, 0);
    const app = (id: string, email: string) => ({
      upstream_application_id: id,
      name: `Name ${id}`,
      email,
      phone: null,
      language: "en",
      position_id: position.id,
    });
    const linked = async () =>
      (
        await query<{ upstream_application_id: string | null }>(
          "select upstream_application_id from candidates where position_id = $1 order by 1 nulls first",
          [position.id],
        )
      ).map((c) => c.upstream_application_id);
    const write = (apps: ReturnType<typeof app>[], page: { skipped: number; resume: string | null; finishedAt?: Date }) =>
      writeRecordedPage(db, org, apps, BASE, { runId: run.id, pages: 1, ...page });

    // A page of one new application, one repeating its email (skipped) and one skipped by the caller.
    assert.deepEqual(await write([app("app-1", "one@example.test"), app("app-2", "ONE@example.test")], { skipped: 1, resume: "c1" }), {
      recorded: true,
    });
    run = (await findSyncRun(db, run.id))!;
    assert.deepEqual(
      [run.state, run.pages, run.createdCount, run.updatedCount, run.skippedCount, run.pageCursor],
      ["running", 1, 1, 0, 2, "c1"],
    );
    assert.deepEqual(await linked(), [null, "app-1"]);
    const [interviews] = await query<{ n: number }>(
      "select count(*)::int as n from interviews i join candidates c on c.id = i.candidate_id where c.upstream_application_id = 'app-1'",
    );
    assert.equal(interviews!.n, 1, "the new candidate has its interview record");

    // An application meeting the hand-made candidate by email: nothing of the page is written, for
    // the caller to write it in a transaction (which adopts the candidate).
    assert.equal(await write([app("app-3", "three@example.test"), app("app-4", "HAND@example.test")], { skipped: 0, resume: "c2" }), null);
    assert.deepEqual(await linked(), [null, "app-1"], "neither application written");
    assert.deepEqual(
      [(await findSyncRun(db, run.id))!.pages, (await findSyncRun(db, run.id))!.pageCursor],
      [1, "c1"],
      "nor the page recorded",
    );

    // A changed application updates its candidate.
    assert.deepEqual(await write([{ ...app("app-1", "one@example.test"), name: "Renamed upstream" }], { skipped: 0, resume: "c3" }), {
      recorded: true,
    });
    run = (await findSyncRun(db, run.id))!;
    assert.deepEqual([run.pages, run.createdCount, run.updatedCount, run.pageCursor], [2, 1, 1, "c3"]);

    // The last page ends the run and moves its checkpoint to the run's start, in the same statement.
    const finishedAt = new Date();
    assert.deepEqual(await write([app("app-5", "five@example.test")], { skipped: 0, resume: null, finishedAt }), { recorded: true });
    run = (await findSyncRun(db, run.id))!;
    assert.deepEqual([run.state, run.pages, run.createdCount, run.pageCursor], ["succeeded", 3, 2, null]);
    assert.equal(run.finishedAt?.getTime(), finishedAt.getTime());
    const [checkpoint] = await query<{ synced_until: Date }>(
      "select synced_until from sync_checkpoints where integration_id = $1 and model = 'applications'",
      [integrationId],
    );
    assert.equal(new Date(checkpoint!.synced_until).getTime(), started.getTime());

    // A run no longer running (cancelled, or ended) gets neither the page nor the record.
    assert.deepEqual(await write([app("app-6", "six@example.test")], { skipped: 0, resume: "c4" }), { recorded: false });
    assert.deepEqual(await linked(), [null, "app-1", "app-5"]);
    run = (await findSyncRun(db, run.id))!;
    assert.deepEqual([run.state, run.pages, run.createdCount], ["succeeded", 3, 2]);
    assert.ok(handMade, "the hand-made candidate is untouched");
  });
  // Two connections: Postgres only (PGlite has one).
  if (kind === "postgres")
    test("a run cancelled by another connection while the page's statement waits for it gets neither the page nor the record", async () => {
      const { db, query, schema } = getDb();
      const org = randomUUID();
      const position = await createPosition(db, org, { name: "Sync target" });
      const queued = await createSyncRun(db, {
        integrationId: `int-${randomUUID()}`,
        orgId: org,
        model: "applications",
        type: "FULL",
        trigger: "test",
      });
      const run = await startSyncRun(db, queued, new Date(), 0);
      const other = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
      await other.connect();
      try {
        // The cancel is under way (the run's row is locked, not yet committed) when the page's statement starts.
        await other.query("begin");
        await other.query("update sync_runs set state = 'cancelled' where id = $1", [run.id]);
        const writing = writeRecordedPage(
          db,
          org,
          [
            {
              upstream_application_id: "app-1",
              name: "One",
              email: "one@example.test",
              phone: null,
              language: "en",
              position_id: position.id,
            },
          ],
          BASE,
          { runId: run.id, pages: 1, skipped: 0, resume: null, finishedAt: new Date() },
        );
        await untilWaitingForLock(query, "with lk as materialized");
        await other.query("commit");
        assert.deepEqual(await writing, { recorded: false });
        const [written] = await query<{ n: number }>("select count(*)::int as n from candidates where position_id = $1", [position.id]);
        assert.equal(written!.n, 0, "no candidate of the page");
        const after = (await findSyncRun(db, run.id))!;
        assert.deepEqual([after.state, after.pages, after.createdCount], ["cancelled", 0, 0]);
        const checkpoints = await query("select 1 from sync_checkpoints where integration_id = $1", [run.integrationId]);
        assert.equal(checkpoints.length, 0, "no checkpoint");
      } finally {
        await other.end();
      }
    });
});
