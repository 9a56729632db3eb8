/**
 * The compact store (columns for the bulk load, objects for what changed since): rows read back as
 * generated, lookups by id and remote id, indexes and updated_after see writes, and the bulk load
 * is never written in place.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { generateDataset } from "../../../src/services/sandbox/data/generate.js";
import { renderApplication, renderCandidate } from "../../../src/services/sandbox/render/ats-render.js";
import { createApplication } from "../../../src/services/sandbox/store/ats-writes.js";
import { Collection } from "../../../src/services/sandbox/store/collection.js";
import type { ColumnSpec } from "../../../src/services/sandbox/store/columns.js";
import type { BaseRow } from "../../../src/services/sandbox/store/rows.js";

type Row = BaseRow & {
  name: string | null;
  at: number | null;
  until: number | null;
  on: boolean;
  ids: readonly string[];
  owner: string;
};
const SPEC: ColumnSpec<Row> = {
  id: "ref",
  remoteId: "digits",
  changedAt: "time",
  deletedAt: "time",
  name: "ref",
  at: "time",
  until: { sameAs: "at" },
  on: "bool",
  ids: "ids",
  owner: "ref",
};
const row = (i: number, extra: Partial<Row> = {}): Row => ({
  id: `id-${i}`,
  remoteId: String(300000 + i),
  changedAt: 1_000 + i,
  deletedAt: null,
  seq: 0,
  name: i % 2 ? `name ${i}` : null,
  at: i % 3 ? 1_700_000_000_000 + i : null,
  until: [null, i % 3 ? 1_700_000_000_000 + i : null, 1_800_000_000_000 + i][i % 3]!,
  on: i % 2 === 0,
  ids: [[], ["a"], ["a", "b"]][i % 3]!,
  owner: `owner-${i % 4}`,
  ...extra,
});

test("rows loaded into columns read back equal, by position, id and remote id", () => {
  const c = new Collection<Row>(SPEC).defineIndex("owner", "owner");
  c.load(Array.from({ length: 30 }, (_, i) => row(i)));
  assert.equal(c.size, 30);
  for (let i = 0; i < 30; i++) {
    assert.deepEqual({ ...c.at(i) }, { ...row(i), seq: i });
    assert.equal(c.get(`id-${i}`)?.seq, i);
    assert.equal(c.byRemoteId(String(300000 + i))?.id, `id-${i}`);
  }
  assert.equal(c.get("nope"), undefined);
  const page = c.page({
    cursor: undefined,
    pageSize: 100,
    includeDeleted: false,
    index: { name: "owner", values: ["owner-1"] },
    fingerprint: "",
  });
  assert.deepEqual(
    page.rows.map((r) => r.seq),
    [1, 5, 9, 13, 17, 21, 25, 29],
  );
});

test("a changed row is the row from then on; the bulk load is not written in place", () => {
  const c = new Collection<Row>(SPEC).defineIndex("owner", "owner");
  c.load(Array.from({ length: 10 }, (_, i) => row(i)));
  assert.equal(c.find("owner", (o) => o === "owner-3")?.id, "id-3");
  const r = c.get("id-2")!;
  assert.throws(() => (r.ids as string[]).push("x"), TypeError, "lists of the bulk load are frozen");
  r.name = "renamed";
  r.ids = [...r.ids, "c"];
  c.touch(r, 5_000);
  assert.equal(c.get("id-2"), r, "the touched object is returned");
  assert.deepEqual(c.at(2).ids, ["a", "b", "c"]);
  assert.deepEqual(c.changedRows(), [r]);

  const added = c.insert(row(99, { owner: "owner-3", changedAt: 6_000 }));
  assert.equal(added.seq, 10);
  assert.equal(c.get("id-99"), added);
  assert.equal(c.byRemoteId("300099"), added);
  const page = (q: { updatedAfter?: number; index?: { name: string; values: string[] } }) =>
    c.page({ cursor: undefined, pageSize: 100, includeDeleted: false, fingerprint: "", ...q }).rows.map((x) => x.id);
  assert.deepEqual(page({ updatedAfter: 4_000 }), ["id-2", "id-99"]);
  assert.deepEqual(page({ index: { name: "owner", values: ["owner-3"] } }), ["id-3", "id-7", "id-99"]);
  // A restored row (persistence.ts) replaces the generated one with its id.
  c.restore({ ...row(5), name: "restored", changedAt: 7_000 });
  assert.equal(c.get("id-5")?.name, "restored");
  assert.deepEqual(page({ updatedAfter: 4_000 }), ["id-2", "id-99", "id-5"], "in changed_at order");
});

test("writes on a generated dataset: lookups by id and remote id, embedded records and updated_after follow", () => {
  const d = generateDataset({ seed: "collection", applications: 300 });
  const same = generateDataset({ seed: "collection", applications: 300 });
  const app = d.applications.at(17);
  assert.equal(JSON.stringify(renderApplication(d, app)), JSON.stringify(renderApplication(same, same.applications.at(17))));

  const before = app.stageId;
  const target = d.stages.get(d.jobs.get(app.jobId)!.stageIds.find((id) => id !== before)!)!;
  d.moveToStage(app, target);
  assert.equal(d.applications.get(app.id)?.stageId, target.id);
  assert.equal(d.applications.byRemoteId(app.remoteId)?.stageId, target.id);
  assert.equal(same.applications.at(17).stageId, before, "another dataset of the seed is untouched");

  const job = d.jobs.at(0);
  const existing = d.candidates.at(3);
  const created = createApplication(d, job, {
    candidate: { first_name: "A", last_name: "B", email_address: existing.email.toUpperCase() },
    stage: d.stages.get(job.stageIds[0]!)!,
  });
  assert.equal(created.candidateId, existing.id, "the candidate with that email is reused");
  assert.deepEqual(d.candidates.get(existing.id)?.applicationIds, [...existing.applicationIds, created.id]);
  assert.ok(renderCandidate(d, d.candidates.get(existing.id)!).applications.some((a) => a.id === created.id));
  const changed = d.applications
    .page({ cursor: undefined, pageSize: 1000, includeDeleted: true, updatedAfter: created.changedAt, fingerprint: "" })
    .rows.map((a) => a.id);
  assert.ok(changed.includes(created.id));
});
