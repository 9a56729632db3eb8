/**
 * The assessment channel of the sandbox, driven by the official @kombo-api/sdk (it parses every
 * answer with its zod models) and by the admin surface that stands in for the recruiter's click:
 * tools, ASSESSMENT integrations, packages, orders with the receiver's answer (accept, 422 reject,
 * inline URL), results with attachments, and the order as the ATS shows it.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import {
  AssessmentOrderReceivedWebhookPayload$inboundSchema,
  InlineAssessmentOrderReceivedWebhookPayload$inboundSchema,
} from "@kombo-api/sdk/models";
import { KomboAtsError } from "@kombo-api/sdk/models/errors";
import type { TestSandbox } from "../../helpers/sandbox.js";
import { type Received, type Respond, sandboxWithReceiver } from "./receiver.js";
import { admin, collectPages, sdkFor } from "./sdk.js";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");
const PACKAGES = [
  { id: "pkg-video", type: "VIDEO_INTERVIEW" as const, name: "AI video interview", description: "Structured interview, 20 min" },
  { id: "pkg-skills", type: "SKILLS_TEST" as const, name: "Skills test", description: "Take-home" },
];

type OrderView = {
  id: string;
  status: string;
  package_id: string;
  package_name: string | null;
  inline: boolean;
  candidate: { remote_id: string; email: string; first_name: string; last_name: string };
  application: { remote_id: string };
  job: { remote_id: string; name: string; hiring_team: { hiring_team_roles: string[] }[] };
  receiver: { state: string; last_status: number | null; event_id: string };
  rejection_message: string | null;
  assessment_url: string | null;
  result: null | {
    status: string;
    score: number;
    max_score: number;
    result_url: string;
    completed_at: string;
    attributes: unknown[];
    remote_fields: unknown;
    written_at: string;
  };
  attachments: { name: string; content_type: string; size: number | null; stored: boolean; download_url: string | null }[];
};

/** A sandbox with an ASSESSMENT integration holding PACKAGES, and a receiver answering with `respond`. */
async function assessmentSetup(t: Parameters<typeof sandboxWithReceiver>[0], respond?: Respond) {
  const { receiver, sandbox } = await sandboxWithReceiver(t, { webhookSecret: "whsec_assess" }, respond);
  const created = await admin<{ id: string; category: string; tool: string; counts: { applications: number } }>(
    sandbox,
    "POST",
    "/sandbox/integrations",
    { category: "ASSESSMENT", org_id: "org-assess" },
  );
  assert.equal(created.status, 201);
  const id = created.body.id;
  const kombo = sdkFor(sandbox, id);
  await kombo.assessment.setPackages({ packages: PACKAGES });
  return { receiver, sandbox, id, kombo, created: created.body };
}

const liveApplications = (sandbox: TestSandbox, id: string) =>
  [...sandbox.context.store.get(id)!.data.applications.values()].filter((a) => a.deletedAt === null);

function placeOrder(sandbox: TestSandbox, id: string, body: Record<string, unknown>) {
  return admin<OrderView & { error?: { message: string } }>(
    sandbox,
    "POST",
    `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders`,
    body,
  );
}

const orderView = (sandbox: TestSandbox, id: string, orderId: string) =>
  admin<OrderView>(sandbox, "GET", `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders/${orderId}`);

test("GET /tools/assessment lists the enterprise ATSs, parsed by the SDK", async (t) => {
  const { sandbox } = await sandboxWithReceiver(t);
  const { data } = await sdkFor(sandbox, null).general.getTools({ category: "assessment" });
  const ids = data.tools.map((tool) => tool.id);
  for (const id of ["workday", "successfactors", "smartrecruiters", "greenhouse"]) assert.ok(ids.includes(id), `${id} in ${ids}`);
  assert.ok(data.tools.every((tool) => tool.coverage.write_actions.some((a) => a.id === "assessment_update_order_result")));
});

test("an ASSESSMENT integration has jobs and applications of its own; its /ats/* answer MODEL_NOT_AVAILABLE", async (t) => {
  const { sandbox, id, created, kombo } = await assessmentSetup(t);
  assert.deepEqual({ category: created.category, tool: created.tool }, { category: "ASSESSMENT", tool: "workday" });
  assert.equal(created.counts.applications, 25);
  assert.ok(liveApplications(sandbox, id).length > 0);
  await assert.rejects(
    kombo.ats.getJobs({}),
    (err: unknown) => err instanceof KomboAtsError && err.data$.error.code === "INTEGRATION.MODEL_NOT_AVAILABLE",
  );
});

test("setPackages replaces the list; getPackages answers it with type and updated_at", async (t) => {
  const { kombo } = await assessmentSetup(t);
  const first = await kombo.assessment.getPackages();
  assert.deepEqual(
    first.data.packages.map((p) => ({ id: p.id, type: p.type, name: p.name, description: p.description })),
    PACKAGES,
  );
  assert.ok(first.data.packages.every((p) => p.updated_at instanceof Date));
  const video = first.data.packages[0]!;

  await new Promise((r) => setTimeout(r, 5));
  const put = await kombo.assessment.setPackages({ packages: [PACKAGES[0]!, { ...PACKAGES[1]!, id: "pkg-ref", type: "REFERENCE_CHECK" }] });
  assert.deepEqual(put, { status: "success", data: {}, warnings: [] });
  const second = await kombo.assessment.getPackages();
  assert.deepEqual(
    second.data.packages.map((p) => p.id),
    ["pkg-video", "pkg-ref"],
  );
  assert.equal(second.data.packages[0]!.updated_at!.getTime(), video.updated_at!.getTime(), "an unchanged package keeps updated_at");

  await kombo.assessment.setPackages({ packages: [] });
  assert.deepEqual((await kombo.assessment.getPackages()).data.packages, []);
});

test("bad package input is 400 in the upstream's error envelope; the list is left as it was", async (t) => {
  const { sandbox, id, kombo } = await assessmentSetup(t);
  const put = (body: unknown, integration: string | null = id) =>
    fetch(`${sandbox.url}/assessment/packages`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${sandbox.apiKey}`,
        "content-type": "application/json",
        ...(integration ? { "x-integration-id": integration } : {}),
      },
      body: JSON.stringify(body),
    });
  for (const body of [
    { packages: [{ ...PACKAGES[0], type: "ESSAY" }] },
    { packages: [{ id: "x", type: "SKILLS_TEST", name: "n" }] },
    { packages: [PACKAGES[0], PACKAGES[0]] },
    { nothing: true },
  ]) {
    const res = await put(body);
    assert.equal(res.status, 400, JSON.stringify(body));
    const json = (await res.json()) as { status: string; error: { code: string; message: string } };
    assert.equal(json.status, "error");
    assert.equal(json.error.code, "PLATFORM.INPUT_INVALID");
  }
  assert.equal((await put({ packages: [] }, null)).status, 400, "X-Integration-Id is required");
  assert.equal((await put({ packages: [] }, "workday:nope")).status, 404);
  assert.equal((await kombo.assessment.getPackages()).data.packages.length, 2);
});

test("an order: the signed assessment:order-received from the sandbox's records, accepted by a 2xx", async (t) => {
  const { receiver, sandbox, id } = await assessmentSetup(t);
  const application = liveApplications(sandbox, id)[0]!;
  const data = sandbox.context.store.get(id)!.data;
  const candidate = data.candidates.get(application.candidateId)!;
  const job = data.jobs.get(application.jobId)!;

  const placed = await placeOrder(sandbox, id, { application_id: application.id, package_id: "pkg-video" });
  assert.equal(placed.status, 201);
  assert.equal(placed.body.status, "OPEN");
  assert.equal(placed.body.receiver.state, "accepted");
  assert.equal(placed.body.package_name, "AI video interview");

  const hook = receiver.received.find((r) => r.body.type === "assessment:order-received") as Received;
  assert.equal(hook.path, "/hooks/assessment-order-received");
  assert.equal(hook.headers["x-kombo-signature"], createHmac("sha256", "whsec_assess").update(hook.raw).digest("base64url"));
  assert.equal(hook.body.id, placed.body.receiver.event_id);
  const parsed = AssessmentOrderReceivedWebhookPayload$inboundSchema.parse(JSON.parse(hook.raw));
  assert.equal(parsed.data.id, placed.body.id);
  assert.equal(parsed.data.integration_id, id);
  assert.equal(parsed.data.package_id, "pkg-video");
  assert.equal(parsed.data.status, "OPEN");
  assert.deepEqual(parsed.data.candidate, {
    remote_id: candidate.remoteId,
    email: candidate.email,
    first_name: candidate.firstName,
    last_name: candidate.lastName,
    phone: candidate.phone,
  });
  assert.deepEqual(parsed.data.application, { remote_id: application.remoteId });
  assert.deepEqual(
    { remote_id: parsed.data.job.remote_id, name: parsed.data.job.name, job_code: parsed.data.job.job_code },
    { remote_id: job.remoteId, name: job.name, job_code: job.jobCode },
  );
  assert.equal(parsed.data.job.description, job.description);
  assert.equal(parsed.data.job.location?.city, job.city);
  assert.ok(parsed.data.job.hiring_team.length > 0 && parsed.data.job.hiring_team.every((m) => m.email && m.hiring_team_roles.length > 0));
});

test("a 422 {message} rejects the order: REJECTED with the message, and no result can be written", async (t) => {
  const { sandbox, id, kombo } = await assessmentSetup(t, () => ({ status: 422, body: { message: "This package is no longer offered." } }));
  const application = liveApplications(sandbox, id)[1]!;
  const placed = await placeOrder(sandbox, id, { application_id: application.id, package_id: "pkg-skills" });
  assert.equal(placed.status, 201);
  assert.deepEqual(
    {
      status: placed.body.status,
      message: placed.body.rejection_message,
      state: placed.body.receiver.state,
      last: placed.body.receiver.last_status,
    },
    { status: "REJECTED", message: "This package is no longer offered.", state: "rejected", last: 422 },
  );
  const listed = await kombo.assessment.getAssessmentOrders({ statuses: ["REJECTED"] });
  assert.deepEqual(
    listed.result.data.results.map((o) => [o.id, o.status]),
    [[placed.body.id, "REJECTED"]],
  );
  await assert.rejects(
    kombo.assessment.updateOrderResult({
      assessment_order_id: placed.body.id,
      body: { status: "COMPLETED", result_url: "https://v.example/r/1" },
    }),
    (err: unknown) => err instanceof KomboAtsError && /only while it is OPEN/.test(err.data$.error.message),
  );
  assert.equal(sandbox.context.webhooks.deliveries().at(-1)?.state, "rejected", "a rejection is an answer: not retried");
});

test("an inline order goes to inline-assessment-order-received and records the assessment_url answered", async (t) => {
  const { receiver, sandbox, id } = await assessmentSetup(t, (r) =>
    r.body.type === "inline-assessment:order-received"
      ? { status: 200, body: { assessment_url: `https://vendor.example/take/${r.body.data["id"]}` } }
      : 200,
  );
  const application = liveApplications(sandbox, id)[2]!;
  const placed = await placeOrder(sandbox, id, { application_id: application.id, package_id: "pkg-video", inline: true });
  assert.equal(placed.status, 201);
  assert.equal(placed.body.inline, true);
  assert.equal(placed.body.status, "OPEN");
  assert.equal(placed.body.assessment_url, `https://vendor.example/take/${placed.body.id}`);
  const hook = receiver.received.at(-1)!;
  assert.equal(hook.path, "/hooks/inline-assessment-order-received");
  assert.equal(InlineAssessmentOrderReceivedWebhookPayload$inboundSchema.parse(JSON.parse(hook.raw)).data.id, placed.body.id);
  assert.deepEqual((await orderView(sandbox, id, placed.body.id)).body.assessment_url, placed.body.assessment_url);
});

test("placing an order for an unknown package or application is refused, and nothing is sent", async (t) => {
  const { receiver, sandbox, id } = await assessmentSetup(t);
  const application = liveApplications(sandbox, id)[0]!;
  const unknownPackage = await placeOrder(sandbox, id, { application_id: application.id, package_id: "pkg-gone" });
  assert.equal(unknownPackage.status, 400);
  assert.match(unknownPackage.body.error!.message, /No package "pkg-gone"/);
  assert.equal((await placeOrder(sandbox, id, { application_id: "nope", package_id: "pkg-video" })).status, 404);
  assert.equal((await placeOrder(sandbox, "workday:nope", { application_id: application.id, package_id: "pkg-video" })).status, 404);
  assert.equal((await placeOrder(sandbox, id, { application_id: application.id, package_id: "pkg-video", extra: 1 })).status, 400);
  assert.deepEqual(
    receiver.received.filter((r) => r.body.type.includes("assessment")),
    [],
  );
  const list = await admin<{ orders: unknown[] }>(sandbox, "GET", `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders`);
  assert.deepEqual(list.body.orders, []);
});

/** Three accepted orders; returns their ids in creation order. */
async function threeOrders(sandbox: TestSandbox, id: string): Promise<string[]> {
  const apps = liveApplications(sandbox, id);
  const ids: string[] = [];
  for (const [i, pkg] of ["pkg-video", "pkg-skills", "pkg-video"].entries()) {
    ids.push((await placeOrder(sandbox, id, { application_id: apps[i]!.id, package_id: pkg })).body.id);
  }
  return ids;
}

test("getAssessmentOrders pages with cursors and filters by ids, statuses and created_after", async (t) => {
  const { sandbox, id, kombo } = await assessmentSetup(t);
  const ids = await threeOrders(sandbox, id);
  const all = await collectPages(await kombo.assessment.getAssessmentOrders({ page_size: 1 }));
  assert.equal(all.pages, 3);
  assert.deepEqual(
    all.results.map((o) => o.id),
    ids,
  );
  const byIds = await kombo.assessment.getAssessmentOrders({ ids: [ids[2]!, ids[0]!] });
  assert.deepEqual(new Set(byIds.result.data.results.map((o) => o.id)), new Set([ids[0], ids[2]]));

  await kombo.assessment.updateOrderResult({
    assessment_order_id: ids[1]!,
    body: { status: "CANCELLED", result_url: "https://v.example/r/2" },
  });
  const open = await kombo.assessment.getAssessmentOrders({ statuses: ["OPEN"] });
  assert.deepEqual(
    open.result.data.results.map((o) => o.id),
    [ids[0], ids[2]],
  );
  const cancelledOrCompleted = await kombo.assessment.getAssessmentOrders({ statuses: ["CANCELLED", "COMPLETED"] });
  assert.deepEqual(
    cancelledOrCompleted.result.data.results.map((o) => [o.id, o.status]),
    [[ids[1], "CANCELLED"]],
  );

  const third = sandbox.context.store.get(id)!.assessment.orders.get(ids[2]!)!;
  const after = await kombo.assessment.getAssessmentOrders({ created_after: new Date(third.createdAt) });
  assert.deepEqual(
    after.result.data.results.map((o) => o.id),
    [ids[2]],
  );
  const future = await kombo.assessment.getAssessmentOrders({ created_after: new Date(Date.now() + 60_000) });
  assert.deepEqual(future.result.data, { next: null, results: [] });

  const bad = await fetch(`${sandbox.url}/assessment/orders?statuses=DONE`, {
    headers: { authorization: `Bearer ${sandbox.apiKey}`, "x-integration-id": id },
  });
  assert.equal(bad.status, 400);
});

test("updateOrderResult: score, attributes and a PDF land on the order as the ATS shows it", async (t) => {
  const { sandbox, id, kombo } = await assessmentSetup(t);
  const [orderId] = await threeOrders(sandbox, id);
  const completedAt = new Date("2026-03-01T10:00:00.000Z");
  const res = await kombo.assessment.updateOrderResult({
    assessment_order_id: orderId!,
    body: {
      status: "COMPLETED",
      result_url: "https://hirebridge.example/results/abc",
      completed_at: completedAt,
      score: 82,
      max_score: 100,
      attributes: [
        { type: "TEXT", label: "Feedback", value: "Clear and structured answers." },
        { type: "SUB_RESULT", id: "communication", label: "Communication", score: { value: 8, max: 10 }, status: "COMPLETED" },
      ],
      attachments: [{ name: "report.pdf", content_type: "application/pdf", data: PDF.toString("base64") }],
      remote_fields: { smartrecruiters: { score_label: "AI score" } },
    },
  });
  assert.deepEqual(res, { status: "success", data: {}, warnings: [] });

  const view = (await orderView(sandbox, id, orderId!)).body;
  assert.equal(view.status, "COMPLETED");
  assert.deepEqual(
    { ...view.result, attributes: view.result!.attributes.length },
    {
      status: "COMPLETED",
      score: 82,
      max_score: 100,
      result_url: "https://hirebridge.example/results/abc",
      completed_at: completedAt.toISOString(),
      attributes: 2,
      remote_fields: { smartrecruiters: { scoreLabel: "AI score" } },
      written_at: view.result!.written_at,
    },
  );
  assert.deepEqual(
    view.attachments.map((a) => ({ name: a.name, content_type: a.content_type, size: a.size, stored: a.stored })),
    [{ name: "report.pdf", content_type: "application/pdf", size: PDF.length, stored: true }],
  );
  const file = await fetch(view.attachments[0]!.download_url!);
  assert.equal(file.headers.get("content-type"), "application/pdf");
  const bytes = Buffer.from(await file.arrayBuffer());
  assert.equal(bytes.subarray(0, 4).toString(), "%PDF");
  assert.deepEqual(bytes, PDF);

  // Writing the same final status again is no change of status (a retried write-back succeeds);
  // another status is refused once the order is closed.
  await kombo.assessment.updateOrderResult({
    assessment_order_id: orderId!,
    body: { status: "COMPLETED", result_url: "https://hirebridge.example/results/abc" },
  });
  await assert.rejects(
    kombo.assessment.updateOrderResult({ assessment_order_id: orderId!, body: { status: "OPEN", result_url: "https://x.example" } }),
    KomboAtsError,
  );
});

/** PUT …/result raw, for bodies the SDK would not send. */
function putResult(sandbox: TestSandbox, integration: string, orderId: string, body: unknown) {
  return fetch(`${sandbox.url}/assessment/orders/${orderId}/result`, {
    method: "PUT",
    headers: { authorization: `Bearer ${sandbox.apiKey}`, "x-integration-id": integration, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

test("result input is validated; another integration's order is 404", async (t) => {
  const { sandbox, id, kombo } = await assessmentSetup(t);
  const [orderId] = await threeOrders(sandbox, id);
  const ok = { status: "COMPLETED", result_url: "https://v.example/r" };
  for (const body of [
    { ...ok, status: "REJECTED" },
    { ...ok, result_url: "javascript:alert(1)" },
    { ...ok, score: 120, max_score: 100 },
    { ...ok, completed_at: "yesterday" },
    { ...ok, attributes: [{ type: "SUB_RESULT", id: "a", label: "A", score: { value: 11, max: 10 }, status: "COMPLETED" }] },
    { ...ok, attachments: [{ name: "a.pdf", data: "not base64!" }] },
    { ...ok, attachments: [{ name: "a.pdf" }] },
    { ...ok, attachments: [{ name: "a.pdf", data: "QQ==", data_url: "https://x.example/a" }] },
  ]) {
    const res = await putResult(sandbox, id, orderId!, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, "PLATFORM.INPUT_INVALID");
  }
  assert.equal(sandbox.context.store.get(id)!.assessment.orders.get(orderId!)!.status, "OPEN", "nothing was written");

  const other = await admin<{ id: string }>(sandbox, "POST", "/sandbox/integrations", {
    category: "ASSESSMENT",
    tool: "successfactors",
    org_id: "org-b",
  });
  const foreign = sdkFor(sandbox, other.body.id);
  await assert.rejects(
    foreign.assessment.updateOrderResult({
      assessment_order_id: orderId!,
      body: { status: "COMPLETED", result_url: "https://v.example/r" },
    }),
    (err: unknown) => err instanceof KomboAtsError && err.statusCode === 404,
  );
  assert.deepEqual((await foreign.assessment.getAssessmentOrders()).result.data.results, []);
  assert.equal((await kombo.assessment.getAssessmentOrders()).result.data.results.length, 3);
});

test("a data_url attachment is downloaded; one that cannot be is kept by name with a warning", async (t) => {
  const { sandbox, id, kombo } = await assessmentSetup(t);
  const [orderId] = await threeOrders(sandbox, id);
  // The sandbox's own file route serves as the vendor's file host: a generated CV (a PDF).
  const demoApp = liveApplications(sandbox, sandbox.demoIntegrationId)[0]!;
  const { data } = await sdkFor(sandbox).ats.getApplicationAttachments({ application_id: demoApp.id });
  const cvUrl = data.results[0]!.data_url;
  const res = await kombo.assessment.updateOrderResult({
    assessment_order_id: orderId!,
    body: {
      status: "COMPLETED",
      result_url: "https://v.example/r",
      attachments: [
        { name: "cv.pdf", content_type: "application/pdf", data_url: cvUrl },
        // Port 1 refuses connections: the download fails at once.
        { name: "gone.pdf", data_url: "http://127.0.0.1:1/missing.pdf" },
      ],
    },
  });
  assert.equal(res.warnings.length, 1);
  assert.match(res.warnings[0]!.message, /gone\.pdf/);
  const view = (await orderView(sandbox, id, orderId!)).body;
  assert.equal(view.attachments[0]!.stored, true);
  assert.ok(view.attachments[0]!.size! > 0);
  assert.deepEqual({ stored: view.attachments[1]!.stored, size: view.attachments[1]!.size }, { stored: false, size: null });
});
