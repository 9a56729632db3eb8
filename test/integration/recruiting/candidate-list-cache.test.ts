import assert from "node:assert/strict";
import { before, test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { CandidateListCache, FOLD_AFTER } from "../../../src/services/recruiting/candidates/candidate-list-cache.js";
import { foldAllCandidateListChanges, readCandidateList } from "../../../src/services/recruiting/candidates/candidates.repository.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { newCandidate, unknownId, useRecruiting, type Caller } from "./recruiting-harness.js";

type Candidate = { id: string; name: string; email: string };
const failOnFold = (err: unknown) => assert.fail(`fold failed: ${String(err)}`);

describeEachDatabase("candidate list answers kept at the list version", (getDb) => {
  const h = useRecruiting(getDb);
  let me: Caller;
  let positionId: string;
  let list: string;
  before(async () => {
    me = await h().login();
    positionId = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Cached" })).json().id;
    list = `/org/${me.orgId}/positions/${positionId}/`;
    for (let i = 0; i < 3; i++) assert.equal((await me.call("POST", list, newCandidate({ name: `C${i}` }))).statusCode, 200);
  });

  test("a second instance's writes on the same database show in the first's next list", async () => {
    const other = await buildRecruitingApp({
      config: testConfig(),
      database: h().database,
      logger: silentLogger(),
      verify: h().identity.verify,
    });
    try {
      const viaOther = (method: "POST" | "PUT", url: string, payload: unknown) =>
        other.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${me.token}` }, payload: payload as never });
      const first = (await me.call("GET", list)).json() as Candidate[];
      assert.equal((await me.call("GET", list)).body, JSON.stringify(first)); // kept, unchanged
      assert.equal((await viaOther("PUT", `${list}candidates/${first[0]!.id}/`, { name: "Renamed elsewhere" })).statusCode, 200);
      const renamed = (await me.call("GET", list)).json() as Candidate[];
      assert.equal(renamed[0]!.name, "Renamed elsewhere");
      const added = (await viaOther("POST", list, newCandidate({ name: "Added elsewhere" }))).json() as Candidate;
      const now = (await me.call("GET", list)).json() as Candidate[];
      assert.deepEqual(
        now.map((c) => c.id),
        [...first.map((c) => c.id), added.id],
      );
      // The bulk update path too.
      assert.equal((await viaOther("PUT", list, [{ id: added.id, name: "Bulk elsewhere" }])).statusCode, 200);
      assert.equal(((await me.call("GET", list)).json() as Candidate[]).at(-1)!.name, "Bulk elsewhere");
    } finally {
      await other.close();
    }
  });

  test("writes outside the API (any SQL: sync engine, write-backs, an operator) change the version; a rolled-back one does not", async () => {
    const db = h().database;
    const cache = new CandidateListCache(1 << 20);
    const kept = await cache.answer(db.db, me.orgId, positionId, failOnFold);
    assert.ok(kept);
    assert.equal(await cache.answer(db.db, me.orgId, positionId, failOnFold), kept, "same version: the same bytes, not rebuilt");

    await db
      .rawTransaction(async (_exec, query) => {
        await query("update candidates set feedback = 'from SQL' where position_id = $1", [positionId]);
        throw new Error("rolled back");
      })
      .catch(() => {});
    assert.equal(await cache.answer(db.db, me.orgId, positionId, failOnFold), kept, "a rolled-back write changes nothing");

    await db.query("update candidates set feedback = 'from SQL' where position_id = $1", [positionId]);
    const updated = await cache.answer(db.db, me.orgId, positionId, failOnFold);
    assert.notEqual(updated, kept);
    assert.ok((JSON.parse(updated!.toString()) as { feedback?: string }[]).every((c) => c.feedback === "from SQL"));

    const victim = (JSON.parse(updated!.toString()) as Candidate[])[0]!;
    await db.query("delete from candidates where id = $1", [victim.id]);
    const afterDelete = JSON.parse((await cache.answer(db.db, me.orgId, positionId, failOnFold))!.toString()) as Candidate[];
    assert.ok(!afterDelete.some((c) => c.id === victim.id));
  });

  test("folding the counted changes keeps the version, so kept answers stay valid", async () => {
    const db = h().database;
    const cache = new CandidateListCache(1 << 20);
    for (let i = 0; i <= FOLD_AFTER; i++) await db.query("update candidates set score = $2 where position_id = $1", [positionId, i]);
    const before = (await readCandidateList(db.db, me.orgId, positionId, null))!;
    assert.ok(before.pending > FOLD_AFTER);
    const kept = await cache.answer(db.db, me.orgId, positionId, failOnFold); // starts the fold
    // The fold runs in the background; wait for it.
    for (let i = 0; i < 100 && (await readCandidateList(db.db, me.orgId, positionId, null))!.pending > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const folded = (await readCandidateList(db.db, me.orgId, positionId, before.version))!;
    assert.equal(folded.pending, 0);
    assert.equal(folded.version, before.version);
    assert.equal(folded.json, null, "the caller's version is still current");
    assert.equal(await cache.answer(db.db, me.orgId, positionId, failOnFold), kept);
    await db.query("update candidates set score = null where position_id = $1", [positionId]);
    assert.equal(BigInt((await readCandidateList(db.db, me.orgId, positionId, null))!.version), BigInt(before.version) + 1n);
  });

  test("folding every position moves the changes of unread positions without changing their versions, and drops a deleted position's", async () => {
    const db = h().database;
    const newPosition = async (name: string, candidates: number) => {
      const id = (await me.call("POST", `/org/${me.orgId}/position`, { name })).json().id as string;
      for (let i = 0; i < candidates; i++)
        assert.equal((await me.call("POST", `/org/${me.orgId}/positions/${id}/`, newCandidate())).statusCode, 200);
      return id;
    };
    const unread = await newPosition("Never listed", 2);
    const gone = await newPosition("Deleted", 1);
    await db.query("delete from positions where id = $1", [gone]);
    const before = (await readCandidateList(db.db, me.orgId, unread, null))!;
    assert.equal(before.pending, 2);
    assert.ok((await foldAllCandidateListChanges(db.db)) >= 4, "two creations, one creation and its cascaded delete");
    const after = (await readCandidateList(db.db, me.orgId, unread, before.version))!;
    assert.deepEqual([after.pending, after.version, after.json], [0, before.version, null]);
    assert.deepEqual(await db.query("select count(*)::int as n from candidate_list_changes where position_id = $1", [gone]), [{ n: 0 }]);
  });

  test("a kept answer never crosses orgs: another org's caller gets 404 for the position, and so does an unknown one", async () => {
    assert.equal((await me.call("GET", list)).statusCode, 200);
    const stranger = await h().login();
    const res = await stranger.call("GET", `/org/${stranger.orgId}/positions/${positionId}/`);
    assert.equal(res.statusCode, 404, res.body);
    assert.equal((await stranger.call("GET", list)).statusCode, 403);
    const cache = new CandidateListCache(1 << 20);
    assert.ok(await cache.answer(h().database.db, me.orgId, positionId, failOnFold));
    assert.equal(await cache.answer(h().database.db, stranger.orgId, positionId, failOnFold), null);
    assert.equal(await cache.answer(h().database.db, me.orgId, unknownId(), failOnFold), null);
  });

  test("the kept answers stay within their byte budget, least recently used first out", async () => {
    const db = h().database;
    const one = (await cache0().answer(db.db, me.orgId, positionId, failOnFold))!.length;
    const second = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Second" })).json().id as string;
    for (let i = 0; i < 3; i++)
      assert.equal((await me.call("POST", `/org/${me.orgId}/positions/${second}/`, newCandidate())).statusCode, 200);
    const cache = new CandidateListCache(one + 10);
    const a = await cache.answer(db.db, me.orgId, positionId, failOnFold);
    assert.equal(cache.size, 1);
    await cache.answer(db.db, me.orgId, second, failOnFold);
    assert.ok(cache.bytes <= cache.maxBytes);
    assert.equal(cache.size, 1);
    assert.notEqual(await cache.answer(db.db, me.orgId, positionId, failOnFold), a, "evicted, so built again");
    const none = new CandidateListCache(0);
    await none.answer(db.db, me.orgId, positionId, failOnFold);
    assert.equal(none.size, 0);
  });

  // Last: it empties the candidates of every test above.
  test("a truncate of the candidates changes every kept list (it fires no insert, update or delete trigger)", async () => {
    const db = h().database;
    const cache = cache0();
    const kept = JSON.parse((await cache.answer(db.db, me.orgId, positionId, failOnFold))!.toString()) as Candidate[];
    assert.ok(kept.length > 0);
    await db.query("truncate candidates cascade");
    assert.equal((await cache.answer(db.db, me.orgId, positionId, failOnFold))!.toString(), "[]");
    assert.equal((await me.call("GET", list)).body, "[]");
  });
});

const cache0 = () => new CandidateListCache(1 << 20);
