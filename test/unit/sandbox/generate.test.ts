/** Seeded data: deterministic, realistic in shape, and fast and paginated in O(page) at benchmark size. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { generateDataset } from "../../../src/services/sandbox/data/generate.js";
import { renderApplication, renderJob } from "../../../src/services/sandbox/render/ats-render.js";
import { SandboxStore } from "../../../src/services/sandbox/store/sandbox-store.js";

const snapshot = (seed: number, applications: number) => {
  const d = generateDataset({ seed, applications });
  return JSON.stringify({
    jobs: [...d.jobs.values()].map((j) => renderJob(d, j)),
    applications: [...d.applications.values()].map((a) => renderApplication(d, a)),
  });
};

test("the same seed gives the same records, byte for byte; another seed gives others", () => {
  assert.equal(snapshot(42, 200), snapshot(42, 200));
  assert.notEqual(snapshot(42, 200), snapshot(43, 200));
  const a = new SandboxStore(42).createIntegration({
    toolId: "greenhouse",
    endUser: { organization_name: "A", creator_email: null, origin_id: "o" },
  });
  const b = new SandboxStore(42).createIntegration({
    toolId: "greenhouse",
    endUser: { organization_name: "A", creator_email: null, origin_id: "o" },
  });
  assert.equal(a.id, b.id, "the demo integration id is stable for a seed");
  assert.match(a.id, /^greenhouse:[1-9A-HJ-NP-Za-km-z]{24}$/);
});

test("a handful of applications still gives open jobs, each with an AI Interview stage", () => {
  const d = generateDataset({ seed: 1, applications: 5 });
  assert.equal(d.applications.size, 5);
  assert.ok(d.jobs.size >= 3);
  for (const job of [...d.jobs.values()]) {
    assert.ok(job.stageIds.map((id) => d.stages.get(id)!.name).includes("AI Interview"));
  }
  assert.ok([...d.jobs.values()].slice(0, 3).every((j) => j.status === "OPEN"));
  assert.equal(generateDataset({ seed: 1, applications: 0 }).applications.size, 0);
});

test("100,000 applications: generated in seconds, spread over stages, paged in O(page)", () => {
  const started = performance.now();
  const d = generateDataset({ seed: 42, applications: 100_000 });
  const generatedMs = performance.now() - started;
  assert.equal(d.applications.size, 100_000);
  assert.ok(generatedMs < 20_000, `generation took ${Math.round(generatedMs)} ms`);

  const byStage = new Map<string, number>();
  for (const a of [...d.applications.values()]) {
    const name = d.stages.get(a.stageId)!.name;
    byStage.set(name, (byStage.get(name) ?? 0) + 1);
  }
  assert.ok((byStage.get("AI Interview") ?? 0) > 10_000, JSON.stringify([...byStage]));
  assert.ok((byStage.get("Hired") ?? 0) > 500 && (byStage.get("Rejected") ?? 0) > 500);
  const emails = new Set([...d.candidates.values()].map((c) => c.email));
  assert.equal(emails.size, d.candidates.size, "candidate emails are unique");

  // The last page costs no more than the first: cursors encode the position.
  const pageAt = (cursor: string | undefined) => d.applications.page({ cursor, pageSize: 250, includeDeleted: false, fingerprint: "" });
  let cursor: string | undefined;
  let pages = 0;
  let rows = 0;
  const t0 = performance.now();
  do {
    const page = pageAt(cursor);
    rows += page.rows.length;
    cursor = page.next ?? undefined;
    pages++;
  } while (cursor);
  const perPageMs = (performance.now() - t0) / pages;
  assert.equal(rows, [...d.applications.values()].filter((a) => a.deletedAt === null).length);
  assert.ok(perPageMs < 5, `a page took ${perPageMs.toFixed(2)} ms on average`);
});
