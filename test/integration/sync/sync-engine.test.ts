import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pg from "pg";
import type { Application, Job } from "../../../src/contracts/upstream/index.js";
import { createAtsReader, RetryableUpstreamError, type AtsReader } from "../../../src/services/sync/ats-reader.js";
import { createSyncStore } from "../../../src/services/recruiting/upstream/index.js";
import type { RecruitingStore } from "../../../src/shared/ports/recruiting-sync.js";
import type { Db, Queryable } from "../../../src/shared/db/database.js";
import { createSyncEngine } from "../../../src/services/sync/sync-engine.js";
import { cancelOpenSyncRuns, findSyncRun, listSyncRuns } from "../../../src/services/sync/sync-runs.repository.js";
import { createUpstreamClient } from "../../../src/shared/upstream/upstream-client.js";
import { silentLogger } from "../../helpers/config.js";
import { describeEachDatabase, TEST_DATABASE_URL, untilWaitingForLock } from "../../helpers/db.js";
import { call, startTestStack, type TestStack } from "../../helpers/stack.js";

describeEachDatabase("sync engine", (getDb, kind) => {
  let stack: TestStack;
  let integrationId: string;
  let orgId: string;
  let reader: AtsReader;
  let jobs: Job[];
  before(async () => {
    // Workers off: the tests drive the engine's runs themselves.
    stack = await startTestStack(getDb(), { sandbox: { applications: 200, webhookUrl: undefined as never }, workers: false });
    integrationId = stack.sandbox.demoIntegrationId;
    orgId = stack.sandbox.demoOrgId;
    const token = (await stack.login(orgId)).accessToken;
    assert.equal((await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}`, { token })).status, 200);
    const upstream = createUpstreamClient({
      baseUrl: stack.sandbox.url,
      apiKey: stack.sandbox.apiKey,
      timeoutMs: 5000,
      retry: { retries: 2, baseDelayMs: 10, maxTotalWaitMs: 1000 },
      logger: silentLogger(),
    });
    reader = createAtsReader(upstream, silentLogger());
    jobs = (await reader.page<Job>(integrationId, "/ats/jobs", { page_size: "250", include_deleted: "true" })).results;
    assert.ok(jobs.length >= 5, "enough jobs to span several pages of 2");
  });
  after(async () => {
    await stack.close();
  });

  /** A full sync of jobs and applications: it sets the checkpoint an incremental run reads from. */
  const fullSync = async (engine: ReturnType<typeof engineWith>) => {
    await engine.start({ integrationId, orgId, models: ["jobs", "applications"], type: "FULL", trigger: "sync-all" });
    await engine.run({ integrationId, model: "jobs" }, { last: false });
    await engine.run({ integrationId, model: "applications" }, { last: false });
  };
  /** The upstream application ids of the integration's candidates. */
  const syncedApplicationIds = async (): Promise<string[]> =>
    (
      await getDb().query<{ upstream_application_id: string }>(
        "select upstream_application_id from candidates c join positions p on p.id = c.position_id where p.upstream_integration_id = $1",
        [integrationId],
      )
    ).map((c) => c.upstream_application_id);
  /**
   * Moves `count` applications that are not candidates yet into the candidate stage upstream;
   * answers their ids, and the page of applications they were picked from.
   */
  const moveIntoCandidateStage = async (count: number, known: string[]): Promise<{ moved: string[]; all: Application[] }> => {
    const all = (await reader.page<Application>(integrationId, "/ats/applications", { page_size: "250" })).results;
    const moved: string[] = [];
    for (const app of all) {
      if (moved.length === count) break;
      if (known.includes(app.id) || !app.candidate?.email_addresses?.length || app.remote_deleted_at) continue;
      const res = await fetch(
        `${stack.sandbox.origin}/sandbox/integrations/${encodeURIComponent(integrationId)}/applications/${app.id}/stage`,
        { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ stage_name: "AI Interview" }) },
      );
      if (res.ok) moved.push(app.id);
    }
    assert.equal(moved.length, count);
    return { moved, all };
  };

  const store = createSyncStore({ interviewBaseUrl: "http://127.0.0.1/interview" });
  /** The engine over the suite's stack, pages of two; `over` swaps its store or its checkpoint margin. */
  const engineWith = (
    r: AtsReader,
    over: Partial<Pick<Parameters<typeof createSyncEngine>[0], "store" | "checkpointMarginSeconds">> = {},
  ) =>
    createSyncEngine({
      db: getDb().db,
      queue: stack.queue,
      reader: r,
      store,
      integrations: stack.proxy.proxy!.integrations,
      logger: silentLogger(),
      defaultCandidateStage: "AI Interview",
      checkpointMarginSeconds: 60,
      pageSize: 2,
      ...over,
    });
  const linkedPositions = async () =>
    getDb().query<{ upstream_job_id_id: string }>("select upstream_job_id_id from positions where upstream_integration_id = $1", [
      integrationId,
    ]);

  test("triggers arriving while a run is queued coalesce into it", async () => {
    const engine = engineWith(reader);
    const runs = await Promise.all(
      [1, 2, 3, 4].map(() => engine.start({ integrationId, orgId, models: ["jobs"], type: "DELTA", trigger: "data-changed" })),
    );
    assert.equal(new Set(runs.map((r) => r.id)).size, 1, "one run for four triggers");
    const upgraded = await engine.start({ integrationId, orgId, models: ["jobs"], type: "FULL", trigger: "sync-all" });
    assert.equal(upgraded.id, runs[0]!.id);
    assert.equal((await findSyncRun(getDb().db, upgraded.id))?.type, "FULL", "a FULL request upgrades the queued DELTA run");
    const joined = await engine.start({ integrationId, orgId, models: ["jobs", "applications"], type: "DELTA", trigger: "sync-finished" });
    assert.equal(joined.id, upgraded.id);
    assert.deepEqual(
      (await findSyncRun(getDb().db, upgraded.id))?.followUp,
      ["applications"],
      "a joining trigger's follow-up models are kept",
    );
    await getDb().query("update sync_runs set follow_up = '{}' where id = $1", [upgraded.id]);
    await engine.run({ integrationId, model: "jobs" }, { last: false });
    assert.equal((await findSyncRun(getDb().db, upgraded.id))?.state, "succeeded");
    const next = await engine.start({ integrationId, orgId, models: ["jobs"], type: "DELTA", trigger: "data-changed" });
    assert.notEqual(next.id, upgraded.id, "after the run, a trigger queues a new one");
    await engine.run({ integrationId, model: "jobs" }, { last: false });
  });

  // Two connections: Postgres only (PGlite has one).
  if (kind === "postgres")
    test("a run queued while the worker takes its last look is run by that worker, not left queued without a job", async () => {
      const engine = engineWith(reader);
      const first = await engine.start({ integrationId, orgId, models: ["jobs"], type: "DELTA", trigger: "data-changed" });
      const other = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${getDb().schema}` });
      await other.connect();
      try {
        // A trigger mid-way: it holds the key's lock and has inserted its run, not yet committed
        // (its job dropped by the queue, which had one waiting for the key already).
        await other.query("begin");
        await other.query("select pg_advisory_xact_lock(hashtext($1))", [`sync:${integrationId}:jobs`]);
        const [late] = (
          await other.query<{ id: string }>(
            "insert into sync_runs (integration_id, org_id, model, type, trigger) values ($1, $2, 'jobs', 'DELTA', 'data-changed') returning id",
            [integrationId, orgId],
          )
        ).rows;
        const running = engine.run({ integrationId, model: "jobs" }, { last: false });
        let returned = false;
        void running.then(() => {
          returned = true;
        });
        // The worker has done the first run and waits for the key's lock (or, wrongly, has ended).
        await untilWaitingForLock(getDb().query, "pg_advisory_xact_lock", () => returned);
        assert.equal((await findSyncRun(getDb().db, first.id))?.state, "succeeded");
        assert.equal(returned, false, "the worker does not end while a trigger may still commit a run");
        await other.query("commit");
        await running;
        assert.equal((await findSyncRun(getDb().db, late!.id))?.state, "succeeded", "the run committed meanwhile is done");
      } finally {
        await other.query("rollback").catch(() => {});
        await other.end();
      }
    });

  test("a sync killed mid-way resumes from its last page: nothing skipped, nothing counted twice", async () => {
    await getDb().query("delete from positions where upstream_integration_id = $1", [integrationId]);
    // The first worker dies after two pages: its next page call never returns (the process is gone).
    let calls = 0;
    const dying: AtsReader = {
      ...reader,
      page: async (...args) => {
        if (++calls > 2) return new Promise<never>(() => {});
        return reader.page(...(args as Parameters<AtsReader["page"]>));
      },
    };
    const first = engineWith(dying);
    const run = await first.start({ integrationId, orgId, models: ["jobs"], type: "FULL", trigger: "sync-all" });
    void first.run({ integrationId, model: "jobs" }, { last: false });
    let crashed;
    for (let i = 0; i < 100; i++) {
      crashed = await findSyncRun(getDb().db, run.id);
      if (crashed?.pages === 2 && calls > 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(crashed?.state, "running");
    assert.equal(crashed?.pages, 2);
    assert.ok(crashed?.pageCursor, "the cursor of the next page is stored");
    assert.equal((await linkedPositions()).length, 4);

    // The queue hands the job to another worker, which continues from the stored cursor.
    let resumedCalls = 0;
    const counting: AtsReader = {
      ...reader,
      page: async (...args) => {
        resumedCalls++;
        return reader.page(...(args as Parameters<AtsReader["page"]>));
      },
    };
    await engineWith(counting).run({ integrationId, model: "jobs" }, { last: false });
    const done = await findSyncRun(getDb().db, run.id);
    assert.equal(done?.state, "succeeded");
    assert.equal(done?.createdCount, jobs.length, "every job created once");
    assert.equal(resumedCalls, Math.ceil(jobs.length / 2) - 2, "only the remaining pages were read");
    const linked = await linkedPositions();
    assert.equal(linked.length, jobs.length);
    assert.deepEqual(new Set(linked.map((p) => p.upstream_job_id_id)), new Set(jobs.map((j) => j.id)));
  });

  /**
   * The ways a page write breaks (the worker lost its connection, say), by how the store writes
   * the page: `store` breaks the write `breaks(q)` (asked before it, on its connection) says is the one.
   */
  const breakingStores: Record<
    string,
    { rolledBack: boolean; store: (breaks: (q: Queryable) => Promise<boolean>) => RecruitingStore<Queryable, Db> }
  > = {
    // In a transaction (a page that met a candidate by email, or a store with no page statement):
    // it breaks after its candidates were written, and rolls back.
    "its transaction breaks after writing": {
      rolledBack: true,
      store: (breaks) => {
        const { upsertCandidatesRecorded: _, ...inTransactions } = store;
        return {
          ...inTransactions,
          upsertCandidates: async (...args) => {
            const broken = await breaks(args[0]);
            const counts = await store.upsertCandidates(...args);
            if (broken) throw new RetryableUpstreamError("connection lost mid-page");
            return counts;
          },
        };
      },
    },
    // Its one statement with the record never reaches the database.
    "its statement is lost on the way": {
      rolledBack: true,
      store: (breaks) => ({
        ...store,
        upsertCandidatesRecorded: async (...args) => {
          if (await breaks(args[0])) throw new RetryableUpstreamError("connection lost mid-page");
          return store.upsertCandidatesRecorded(...args);
        },
      }),
    },
    // Its one statement commits, and its answer is lost.
    "its statement's answer is lost": {
      rolledBack: false,
      store: (breaks) => ({
        ...store,
        upsertCandidatesRecorded: async (...args) => {
          const broken = await breaks(args[0]);
          const done = await store.upsertCandidatesRecorded(...args);
          if (broken) throw new RetryableUpstreamError("connection lost mid-page");
          return done;
        },
      }),
    },
  };

  for (const [how, breaking] of Object.entries(breakingStores))
    test(`an applications sync whose page write breaks (${how}) resumes after its last recorded page: nothing skipped, nothing written or counted twice`, async () => {
      const engine = engineWith(reader);
      await engine.start({ integrationId, orgId, models: ["jobs"], type: "FULL", trigger: "sync-all" });
      await engine.run({ integrationId, model: "jobs" }, { last: false });
      const candidatesNow = async () =>
        (
          await getDb().query<{ position_id: string; upstream_application_id: string }>(
            "select c.position_id, c.upstream_application_id from candidates c join positions p on p.id = c.position_id where p.upstream_integration_id = $1 order by 1, 2",
            [integrationId],
          )
        ).map((c) => `${c.position_id}/${c.upstream_application_id}`);
      const forget = () =>
        getDb().query("delete from candidates where position_id in (select id from positions where upstream_integration_id = $1)", [
          integrationId,
        ]);
      const syncApplications = async (e: ReturnType<typeof engineWith>, last: boolean) => {
        const run = await e.start({ integrationId, orgId, models: ["applications"], type: "FULL", trigger: "sync-all" });
        await e.run({ integrationId, model: "applications" }, { last });
        return run.id;
      };

      // Reference: the same sync, uninterrupted.
      await forget();
      const whole = (await findSyncRun(getDb().db, await syncApplications(engine, false)))!;
      const expected = await candidatesNow();
      assert.ok(whole.pages >= 6, `several pages (${whole.pages})`);
      assert.equal(whole.createdCount, expected.length);

      // The fourth write breaks (of pages written one by one or, read meanwhile, together): the run
      // stays running at the last page recorded.
      await forget();
      const runId = (await engine.start({ integrationId, orgId, models: ["applications"], type: "FULL", trigger: "sync-all" })).id;
      let writes = 0;
      let pagesBefore = -1;
      const broken = engineWith(reader, {
        // Read on the write's own connection (in its transaction, when it has one).
        store: breaking.store(async (q) => {
          if (++writes !== 4) return false;
          pagesBefore = (await findSyncRun(q, runId))!.pages;
          return true;
        }),
      });
      await assert.rejects(broken.run({ integrationId, model: "applications" }, { last: false }), /connection lost/);
      const stopped = (await findSyncRun(getDb().db, runId))!;
      assert.equal(stopped.state, "running");
      assert.ok(stopped.pages >= 3 && stopped.pages < whole.pages, `stopped after ${stopped.pages} pages`);
      if (breaking.rolledBack)
        assert.equal(
          typeof (JSON.parse(stopped.pageCursor!) as { cursor?: unknown }).cursor,
          "string",
          "stopped inside a listing, at its next page",
        );
      assert.ok(pagesBefore >= 3, `three writes recorded before (${pagesBefore} pages)`);
      if (breaking.rolledBack) assert.equal(stopped.pages, pagesBefore, "the broken write's pages are not recorded");
      else assert.ok(stopped.pages > pagesBefore, "the write whose answer was lost is recorded");
      const partial = await candidatesNow();
      assert.ok(partial.length < expected.length, "the pages after the last one recorded are not there");
      assert.equal(partial.length, stopped.createdCount, "the pages recorded are the pages written");

      await engine.run({ integrationId, model: "applications" }, { last: false });
      const resumed = (await findSyncRun(getDb().db, runId))!;
      assert.equal(resumed.state, "succeeded");
      assert.deepEqual(await candidatesNow(), expected, "the same candidates as the uninterrupted sync");
      assert.equal(resumed.createdCount, expected.length, "each counted once");
      assert.equal(resumed.pages, whole.pages, "each page written once");
    });

  test("an incremental applications sync reads only the changed applications and adds those now in their candidate stage", async () => {
    const engine = engineWith(reader);
    await fullSync(engine);
    const known = await syncedApplicationIds();
    // Three applications not yet candidates move into the "AI Interview" stage upstream.
    const { moved } = await moveIntoCandidateStage(3, known);
    const calls: Record<string, string>[] = [];
    const recording: AtsReader = {
      ...reader,
      page: async (id, path, query) => {
        calls.push({ path, ...query });
        return reader.page(id, path, query);
      },
    };
    const run = await engine.start({ integrationId, orgId, models: ["applications"], type: "DELTA", trigger: "data-changed" });
    await engineWith(recording).run({ integrationId, model: "applications" }, { last: false });
    const done = (await findSyncRun(getDb().db, run.id))!;
    assert.equal(done.state, "succeeded");
    assert.ok(
      calls.length >= 1 && calls.every((c) => c["path"] === "/ats/applications" && c["updated_after"] && !c["job_ids"]),
      JSON.stringify(calls),
    );
    assert.equal(calls.length, Math.max(1, Math.ceil(3 / 2)), "only the pages of changes were read");
    assert.deepEqual(new Set(await syncedApplicationIds()), new Set([...known, ...moved]));
    assert.equal(done.createdCount, 3);
  });

  test("an incremental run meeting a hand-made candidate by email adopts it: that page is written in a transaction", async () => {
    const engine = engineWith(reader);
    await fullSync(engine);
    const known = await syncedApplicationIds();
    const { moved, all } = await moveIntoCandidateStage(3, known);
    // A recruiter added the second moved application's person by hand, in the same position,
    // with the email in other letters' case.
    const target = all.find((a) => a.id === moved[1])!;
    const email = target.candidate!.email_addresses!.map((e) => e.email_address?.trim()).find((e) => !!e && e.includes("@"))!;
    const [position] = await getDb().query<{ id: string }>(
      "select id from positions where upstream_integration_id = $1 and upstream_job_id_id = $2",
      [integrationId, target.job_id],
    );
    const [handMade] = await getDb().query<{ id: string }>(
      "insert into candidates (organization_id, position_id, name, email, phone, language, tags) values ($1, $2, 'By hand', $3, '9', 'fr', '{}') returning id",
      [orgId, position!.id, email.toUpperCase()],
    );
    const run = await engine.start({ integrationId, orgId, models: ["applications"], type: "DELTA", trigger: "data-changed" });
    await engineWith(reader, { checkpointMarginSeconds: 0 }).run({ integrationId, model: "applications" }, { last: false });
    const done = (await findSyncRun(getDb().db, run.id))!;
    assert.equal(done.state, "succeeded");
    assert.deepEqual([done.createdCount, done.updatedCount], [2, 1], "two created, the hand-made one adopted");
    const [adopted] = await getDb().query<{ upstream_application_id: string | null; language: string }>(
      "select upstream_application_id, language from candidates where id = $1",
      [handMade!.id],
    );
    assert.deepEqual([adopted!.upstream_application_id, adopted!.language], [target.id, "fr"], "linked, its language kept");
    const after = await syncedApplicationIds();
    assert.equal(after.length, new Set(after).size, "no candidate twice");
    assert.deepEqual(new Set(after), new Set([...known, ...moved]));
  });

  test("an incremental run writing the pages read meanwhile together, interrupted, resumes after its last commit: nothing skipped, nothing written or counted twice", async () => {
    const engine = engineWith(reader);
    await fullSync(engine);
    // The checkpoint at now, and no margin below: the run reads exactly the changes below.
    await getDb().query("update sync_checkpoints set synced_until = now() where integration_id = $1", [integrationId]);
    const known = await syncedApplicationIds();
    // Seven applications move into the candidate stage: four pages of two.
    const { moved, all } = await moveIntoCandidateStage(7, known);

    // The first write waits until the other three pages were read, so they are written together;
    // that second write breaks on its way to the database (the connection lost, say). The
    // positions are looked up before: on PGlite's one connection, the reads' lookups would wait
    // for the write's transaction.
    const jobIds = [...new Set(all.map((a) => a.job_id).filter((j): j is string => !!j))];
    const positions = await store.positionsOfJobs(getDb().db, orgId, integrationId, jobIds);
    let reads = 0;
    const counting: AtsReader = {
      ...reader,
      page: async (...args) => {
        reads++;
        return reader.page(...(args as Parameters<AtsReader["page"]>));
      },
    };
    const written: number[] = [];
    const breaking = engineWith(counting, {
      checkpointMarginSeconds: 0,
      store: {
        ...store,
        positionsOfJobs: async (_q, _o, _i, ids) => positions.filter((p) => ids.includes(p.upstreamJobIdId)),
        upsertCandidatesRecorded: async (...args) => {
          if (written.length === 0) {
            for (let i = 0; i < 200 && reads < 4; i++) await new Promise((r) => setTimeout(r, 10));
            await new Promise((r) => setTimeout(r, 100)); // the last page's positions
          }
          written.push(args[2].length);
          if (written.length === 2) throw new RetryableUpstreamError("connection lost mid-write");
          return store.upsertCandidatesRecorded(...args);
        },
      },
    });
    const run = await engine.start({ integrationId, orgId, models: ["applications"], type: "DELTA", trigger: "data-changed" });
    await assert.rejects(breaking.run({ integrationId, model: "applications" }, { last: false }), /connection lost/);
    assert.deepEqual(written, [2, 5], "the first page alone, then the three read meanwhile in one write");
    const broken = (await findSyncRun(getDb().db, run.id))!;
    assert.equal(broken.state, "running");
    assert.equal(broken.pages, 1, "the broken write's pages rolled back with it");
    assert.equal(broken.createdCount, 2);
    assert.ok(broken.pageCursor, "the resume point is the second page");
    assert.equal((await syncedApplicationIds()).length, known.length + 2, "only the first page's candidates are there");

    await engineWith(reader).run({ integrationId, model: "applications" }, { last: false });
    const done = (await findSyncRun(getDb().db, run.id))!;
    assert.equal(done.state, "succeeded");
    const after = await syncedApplicationIds();
    assert.equal(after.length, new Set(after).size, "no candidate twice");
    assert.deepEqual(new Set(after), new Set([...known, ...moved]), "none skipped");
    assert.equal(done.createdCount, 7, "each counted once");
    assert.equal(done.pages, 4, "each page written once");
    const [checkpoint] = await getDb().query<{ synced_until: Date }>(
      "select synced_until from sync_checkpoints where integration_id = $1 and model = 'applications'",
      [integrationId],
    );
    assert.equal(
      new Date(checkpoint!.synced_until).getTime(),
      done.startedAt!.getTime(),
      "the last page's commit moved the checkpoint to the run's start",
    );
  });

  test("an incremental run cancelled before its last page is written: that page rolls back and the checkpoint stays", async () => {
    const engine = engineWith(reader);
    await fullSync(engine);
    await getDb().query("update sync_checkpoints set synced_until = now() where integration_id = $1", [integrationId]);
    const checkpoint = async () =>
      (
        await getDb().query<{ synced_until: Date }>(
          "select synced_until from sync_checkpoints where integration_id = $1 and model = 'applications'",
          [integrationId],
        )
      )[0]!.synced_until;
    const before = new Date(await checkpoint()).getTime();
    const known = await syncedApplicationIds();
    await moveIntoCandidateStage(3, known);
    // The integration is paused while the last page (the second of two) is being read.
    const pausing: AtsReader = {
      ...reader,
      page: async (...args) => {
        if (args[2]["cursor"]) await cancelOpenSyncRuns(getDb().db, integrationId, "paused: integration is INACTIVE");
        return reader.page(...(args as Parameters<AtsReader["page"]>));
      },
    };
    const run = await engine.start({ integrationId, orgId, models: ["applications"], type: "DELTA", trigger: "data-changed" });
    await engineWith(pausing, { checkpointMarginSeconds: 0 }).run({ integrationId, model: "applications" }, { last: false });
    const cancelled = (await findSyncRun(getDb().db, run.id))!;
    assert.equal(cancelled.state, "cancelled");
    assert.ok(cancelled.pages <= 1, `${cancelled.pages} pages recorded`);
    const added = (await syncedApplicationIds()).length - known.length;
    assert.equal(added, cancelled.createdCount, "only the pages recorded were written");
    assert.ok(added < 3, "the last page's candidates rolled back");
    assert.equal(new Date(await checkpoint()).getTime(), before, "the checkpoint did not move");
  });

  test("an upstream failure after the last retry fails the run with the error, visible on the runs", async () => {
    const failing: AtsReader = {
      ...reader,
      page: async () => {
        const { RetryableUpstreamError } = await import("../../../src/services/sync/ats-reader.js");
        throw new RetryableUpstreamError("upstream answered 503 (REMOTE.SERVICE_UNAVAILABLE: down)");
      },
    };
    const engine = engineWith(failing);
    const run = await engine.start({ integrationId, orgId, models: ["applications"], type: "FULL", trigger: "sync-all" });
    await assert.rejects(engine.run({ integrationId, model: "applications" }, { last: false }), /503/);
    assert.equal((await findSyncRun(getDb().db, run.id))?.state, "running", "a retryable failure leaves the run to resume");
    await engine.run({ integrationId, model: "applications" }, { last: true });
    const failed = (await listSyncRuns(getDb().db, integrationId)).find((r) => r.id === run.id);
    assert.equal(failed?.state, "failed");
    assert.match(failed?.lastError ?? "", /503/);
  });
});
