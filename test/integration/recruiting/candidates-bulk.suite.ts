import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { expect422, expectDetail, newCandidate, unknownId, type Caller, type Harness } from "./recruiting-harness.js";

type Candidate = Record<string, unknown> & { id: string; email: string; updated_at: string };

/**
 * The bulk candidate update. Runs inside the candidates suite (same database and token service, so
 * no second database setup), in an org of its own.
 */
export function bulkUpdateSuite(h: () => Harness): void {
  describe("candidate bulk update", () => {
    let me: Caller;
    let base: string;
    let trio: Candidate[];
    const list = async () => (await me.call("GET", base)).json() as Candidate[];
    before(async () => {
      me = await h().login();
      const positionId = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Bulk" })).json().id;
      base = `/org/${me.orgId}/positions/${positionId}/`;
      trio = [];
      for (const name of ["A", "B", "C"]) trio.push((await me.call("POST", base, newCandidate({ name }))).json());
    });

    test("PUT applies every entry and answers the updated candidates in the order sent", async () => {
      const [a, b] = await list();
      const res = await me.call("PUT", base, [
        { id: b!.id, state: "passed", score: 91, position_id: unknownId() },
        { id: a!.id, short_listed: true, tags: ["x"] },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const [nb, na] = res.json() as Candidate[];
      assert.deepEqual(nb, { ...b, state: "passed", score: 91, updated_at: nb!.updated_at });
      assert.deepEqual(na, { ...a, short_listed: true, tags: ["x"], updated_at: na!.updated_at });
      const after = await list();
      assert.deepEqual(after.slice(0, 2), [na, nb]);
      assert.deepEqual((await me.call("PUT", base, [])).json(), []);
    });

    test("all or nothing: an unknown id is 404 naming the first one, and no entry is applied", async () => {
      const before = await list();
      const ghost1 = unknownId();
      const ghost2 = unknownId();
      const res = await me.call("PUT", base, [
        { id: trio[0]!.id, name: "Should not stick" },
        { id: ghost1, name: "x" },
        { id: ghost2, name: "y" },
      ]);
      expectDetail(res, 404, `Candidate ${ghost1} not found in this position`);
      assert.deepEqual(await list(), before);
    });

    test("all or nothing: a duplicate email is 409 and rolls back the earlier entries", async () => {
      const before = await list();
      const res = await me.call("PUT", base, [
        { id: trio[0]!.id, name: "Should not stick" },
        { id: trio[1]!.id, email: trio[2]!.email },
      ]);
      expectDetail(res, 409, `Candidate ${trio[1]!.id} not updated: another candidate of this position already has this email`);
      assert.deepEqual(await list(), before);
    });

    test("422: a repeated id, a bad entry, a non-array body; 404 for an unknown position", async () => {
      const before = await list();
      expect422(
        await me.call("PUT", base, [
          { id: trio[0]!.id, name: "a" },
          { id: trio[0]!.id, name: "b" },
        ]),
        [["body.1.id", "value_error"]],
      );
      expect422(await me.call("PUT", base, [{ id: trio[0]!.id }, { name: "no id", score: "high" }, { id: "x" }]), [
        ["body.1.id", "missing"],
        ["body.1.score", "int_type"],
        ["body.2.id", "uuid_parsing"],
      ]);
      expect422(await me.call("PUT", base, { id: trio[0]!.id }), [["body", "list_type"]]);
      const tooMany = Array.from({ length: 1001 }, () => ({ id: unknownId() }));
      expect422(await me.call("PUT", base, tooMany), [["body", "too_long"]]);
      expectDetail(
        await me.call("PUT", `/org/${me.orgId}/positions/${unknownId()}/`, [{ id: trio[0]!.id, name: "x" }]),
        404,
        "Position not found",
      );
      assert.deepEqual(await list(), before);
    });
  });
}
