/** Writes really change the sandbox's data, as later reads (and the admin surface) show. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { KomboAtsError } from "@kombo-api/sdk/models/errors";
import type { Application, Job } from "../../../src/contracts/upstream/index.js";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.js";
import { admin, collectPages, sdkFor } from "./sdk.js";

let sandbox: TestSandbox;
let base: string;
before(async () => {
  sandbox = await startSandbox({ seed: 11, applications: 80 });
  base = `/sandbox/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}`;
});
after(() => sandbox.close());

test("a stage move changes current_stage, outcome and changed_at; the move shows in updated_after reads", async () => {
  const kombo = sdkFor(sandbox);
  const app = (await kombo.ats.getApplications({ outcomes: ["PENDING"], page_size: 1 })).result.data.results[0]!;
  const job = (await kombo.ats.getJobs({ ids: [app.job_id!] })).result.data.results[0]!;
  const hired = job.stages.find((s) => s.name === "Hired")!;
  const startedAt = new Date();
  await kombo.ats.moveApplicationToStage({ application_id: app.id, body: { stage_id: hired.id } });

  const after = (await kombo.ats.getApplications({ ids: [app.id] })).result.data.results[0]!;
  assert.equal(after.current_stage_id, hired.id);
  assert.deepEqual(after.current_stage, { id: hired.id, remote_id: hired.remote_id, name: "Hired", index: hired.index });
  assert.equal(after.outcome, "HIRED");
  assert.ok(after.changed_at > app.changed_at && after.changed_at.getTime() >= startedAt.getTime() - 5);
  const changed = await collectPages(await kombo.ats.getApplications({ updated_after: startedAt }));
  assert.deepEqual(
    changed.results.map((a) => a.id),
    [app.id],
  );
  // The candidate embeds the application, so it counts as changed too.
  const candidates = await collectPages(await kombo.ats.getCandidates({ updated_after: startedAt }));
  assert.deepEqual(
    candidates.results.map((c) => c.id),
    [app.candidate_id],
  );
  assert.equal(candidates.results[0]!.applications.find((a) => a.id === app.id)?.current_stage?.name, "Hired");
});

test("a tag appears on the candidate and inside its applications; removing it takes it away", async () => {
  const kombo = sdkFor(sandbox);
  const app = (await kombo.ats.getApplications({ page_size: 5 })).result.data.results[4]!;
  const candidateId = app.candidate_id!;
  await kombo.ats.addCandidateTag({ candidate_id: candidateId, body: { tag: { name: "AI: strong hire" } } });
  const tags = await collectPages(await kombo.ats.getTags());
  const tag = tags.results.find((t) => t.name === "AI: strong hire");
  assert.ok(tag, "the tag was created");
  const candidate = (await kombo.ats.getCandidates({ ids: [candidateId] })).result.data.results[0]!;
  assert.deepEqual(
    candidate.tags.filter((t) => t.id === tag.id),
    [{ id: tag.id, name: tag.name, remote_id: tag.remote_id }],
  );
  const embedded = (await kombo.ats.getApplications({ ids: [app.id] })).result.data.results[0]!;
  assert.ok(embedded.candidate?.tags.some((t) => t.id === tag.id));

  // Adding the same name again (any case) reuses the tag.
  await kombo.ats.addCandidateTag({ candidate_id: candidateId, body: { tag: { name: "ai: STRONG hire" } } });
  assert.equal((await collectPages(await kombo.ats.getTags())).results.length, tags.results.length);

  await kombo.ats.removeCandidateTag({ candidate_id: candidateId, body: { tag: { name: "AI: strong hire" } } });
  const without = (await kombo.ats.getCandidates({ ids: [candidateId] })).result.data.results[0]!;
  assert.equal(
    without.tags.some((t) => t.id === tag.id),
    false,
  );
});

test("a created application shows in the lists; the same email applying twice is ATS.APPLICATION_ALREADY_EXISTS", async () => {
  const kombo = sdkFor(sandbox);
  const job = (await kombo.ats.getJobs({ statuses: ["OPEN"], page_size: 1 })).result.data.results[0]!;
  const aiStage = job.stages.find((s) => s.name === "AI Interview")!;
  const body = { candidate: { first_name: "Grace", last_name: "Hopper", email_address: "grace@navy.example" }, stage_id: aiStage.id };
  const created = await kombo.ats.createApplication({ job_id: job.id, body });
  const ofJob = await collectPages(await kombo.ats.getApplications({ job_ids: [job.id], current_stage_ids: [aiStage.id] }));
  assert.ok(ofJob.results.some((a) => a.id === created.data.id && a.candidate?.first_name === "Grace"));
  const candidate = (await kombo.ats.getCandidates({ email: "grace@navy.example" })).result.data.results;
  assert.deepEqual(
    candidate.map((c) => c.applications.map((a) => a.id)),
    [[created.data.id]],
  );

  await assert.rejects(kombo.ats.createApplication({ job_id: job.id, body }), (err: unknown) => {
    assert.ok(err instanceof KomboAtsError);
    assert.equal(err.statusCode, 409);
    assert.equal(err.error.code, "ATS.APPLICATION_ALREADY_EXISTS");
    return true;
  });
});

test("notes and result links are kept on the application (the admin read shows them)", async () => {
  const kombo = sdkFor(sandbox);
  const app = (await kombo.ats.getApplications({ page_size: 3 })).result.data.results[2]!;
  await kombo.ats.addApplicationNote({ application_id: app.id, body: { content: "AI interview: 91/100", content_type: "PLAIN_TEXT" } });
  await kombo.ats.addApplicationResultLink({
    application_id: app.id,
    body: { label: "Report", url: "https://hirebridge.example.com/r/9" },
  });
  const { status, body } = await admin<{
    id: string;
    notes: { content: string; content_type: string }[];
    result_links: { label: string; url: string; details: unknown }[];
  }>(sandbox, "GET", `${base}/applications/${app.id}`);
  assert.equal(status, 200);
  assert.equal(body.id, app.id);
  assert.deepEqual(
    body.notes.map(({ content, content_type }) => ({ content, content_type })),
    [{ content: "AI interview: 91/100", content_type: "PLAIN_TEXT" }],
  );
  assert.deepEqual(
    body.result_links.map(({ label, url, details }) => ({ label, url, details })),
    [{ label: "Report", url: "https://hirebridge.example.com/r/9", details: null }],
  );
});

test("admin: add a job with its stages, add an application, move it by stage name", async () => {
  const kombo = sdkFor(sandbox);
  const job = await admin<Job>(sandbox, "POST", `${base}/jobs`, {
    name: "Pilot",
    department: "Operations",
    stages: ["New", "AI Interview", "Passed", "Rejected"],
  });
  assert.equal(job.status, 201);
  assert.deepEqual(
    job.body.stages.map((s) => [s.name, s.index]),
    [
      ["New", 0],
      ["AI Interview", 1],
      ["Passed", 2],
      ["Rejected", 3],
    ],
  );
  const listed = (await kombo.ats.getJobs({ ids: [job.body.id] })).result.data.results[0]!;
  assert.equal(listed.name, "Pilot");
  assert.equal(listed.department, "Operations");

  const app = await admin<Application>(sandbox, "POST", `${base}/applications`, {
    job_id: job.body.id,
    stage_name: "ai interview",
    candidate: { first_name: "Amelia", last_name: "Earhart", email_address: "amelia@example.com" },
  });
  assert.equal(app.status, 201);
  assert.equal(app.body.current_stage?.name, "AI Interview");
  const moved = await admin<Application>(sandbox, "PUT", `${base}/applications/${app.body.id}/stage`, { stage_name: "Rejected" });
  assert.equal(moved.body.current_stage?.name, "Rejected");
  assert.equal(moved.body.outcome, "DECLINED");
  const read = (await kombo.ats.getApplications({ ids: [app.body.id] })).result.data.results[0]!;
  assert.equal(read.outcome, "DECLINED");
  assert.ok(read.rejected_at instanceof Date);

  const bad = await admin<{ status: string; error: { code: string; message: string } }>(
    sandbox,
    "PUT",
    `${base}/applications/${app.body.id}/stage`,
    { stage_name: "Onsite" },
  );
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "PLATFORM.INPUT_INVALID");
  assert.match(bad.body.error.message, /its stages: New, AI Interview, Passed, Rejected/);
  const invalid = await admin<{ error: { message: string } }>(sandbox, "POST", `${base}/jobs`, { nam: "typo" });
  assert.equal(invalid.status, 400);
  assert.match(invalid.body.error.message, /body\.name: is required/);
});

test("admin: an integration created for an organisation is served through the API", async () => {
  const created = await admin<{ id: string; end_user: unknown; counts: { applications: number } }>(
    sandbox,
    "POST",
    "/sandbox/integrations",
    {
      tool: "teamtailor",
      org_id: "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed",
      applications: 12,
    },
  );
  assert.equal(created.status, 201);
  assert.match(created.body.id, /^teamtailor:/);
  assert.equal(created.body.counts.applications, 12);
  const details = await sdkFor(sandbox, null).general.getIntegrationDetails({ integration_id: created.body.id });
  assert.equal(details.data.end_user.origin_id, "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed");
  assert.equal((await collectPages(await sdkFor(sandbox, created.body.id).ats.getApplications())).results.length, 12);
});

test("admin: integration states gate the ATS endpoints with the upstream's codes", async () => {
  const created = await admin<{ id: string }>(sandbox, "POST", "/sandbox/integrations", { org_id: "x", applications: 3 });
  const path = `/sandbox/integrations/${encodeURIComponent(created.body.id)}/state`;
  const kombo = sdkFor(sandbox, created.body.id);
  const expectCode = async (code: string, status: number) =>
    assert.rejects(
      kombo.ats.getApplications(),
      (err: unknown) => err instanceof KomboAtsError && err.error.code === code && err.statusCode === status,
    );
  await admin(sandbox, "PUT", path, { state: "INACTIVE" });
  await expectCode("INTEGRATION.INACTIVE", 403);
  await admin(sandbox, "PUT", path, { state: "ACTIVE", setup_status: "INCOMPLETE" });
  await expectCode("INTEGRATION.SETUP_INCOMPLETE", 409);
  await admin(sandbox, "PUT", path, { setup_status: "FINAL_SYNC_PENDING" });
  await expectCode("INTEGRATION.SETUP_SYNC_PENDING", 409);
  const done = await admin<{ state: string; setup_status: string }>(sandbox, "PUT", path, { setup_status: "COMPLETED" });
  assert.deepEqual([done.body.state, done.body.setup_status], ["ACTIVE", "COMPLETED"]);
  assert.equal((await kombo.ats.getApplications()).result.data.results.length, 3);
});
