/**
 * The assessment channel of the sandbox, driven by the official @kombo-api/sdk (it parses every
 * answer with its zod models) and by the admin surface that stands in for the recruiter's click:
 * tools, ASSESSMENT integrations (admin and connect flow), packages, orders with the receiver's
 * answer (accept, 422 reject, inline URL) and the orders list. Results: assessment-results.test.ts.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import {
  AssessmentOrderReceivedWebhookPayload$inboundSchema,
  InlineAssessmentOrderReceivedWebhookPayload$inboundSchema,
} from "@kombo-api/sdk/models";
import { KomboAtsError } from "@kombo-api/sdk/models/errors";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AssessmentWebhookEventSchema } from "../../../src/contracts/upstream/index.js";
import { PACKAGES, assessmentSetup, liveApplications, orderView, placeOrder, threeOrders } from "./assessment-setup.js";
import { type Received, sandboxWithReceiver } from "./receiver.js";
import { admin, collectPages, sdkFor } from "./sdk.js";

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
  const live = liveApplications(sandbox, id);
  const path = `/sandbox/integrations/${encodeURIComponent(id)}/applications`;
  const listed = await admin<{ applications: { id: string; candidate: { id: string } }[] }>(sandbox, "GET", `${path}?limit=3&offset=1`);
  assert.deepEqual(
    listed.body.applications.map((a) => [a.id, a.candidate.id]),
    live.slice(1, 4).map((a) => [a.id, a.candidateId]),
  );
  assert.equal((await admin<{ applications: unknown[] }>(sandbox, "GET", path)).body.applications.length, Math.min(20, live.length));
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
  // The contract Hirebridge's receivers build on, and the official SDK's model, both accept it.
  assert.ok(TypeCompiler.Compile(AssessmentWebhookEventSchema("assessment:order-received")).Check(hook.body));
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

test("the connect flow with integration_category ASSESSMENT offers the assessment tools and creates such an integration", async (t) => {
  const { receiver, sandbox } = await sandboxWithReceiver(t);
  const { data } = await sdkFor(sandbox, null).connect.createConnectionLink({
    end_user_email: "ta@globex.example",
    end_user_organization_name: "Globex",
    end_user_origin_id: "org-globex",
    integration_category: "ASSESSMENT",
  });
  const html = await (await fetch(data.link)).text();
  assert.match(html, /value="workday"/);
  assert.match(html, /value="successfactors"/);
  assert.doesNotMatch(html, /value="lever"/, "only tools of the link's category");
  const confirm = await fetch(`${data.link}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tool_id: "successfactors" }),
  });
  const { integration_id } = (await confirm.json()) as { integration_id: string };
  const created = await receiver.waitFor((r) => r.body.type === "integration-created");
  assert.deepEqual(
    { id: created.body.data["id"], tool: created.body.data["tool"], category: created.body.data["category"] },
    { id: integration_id, tool: "successfactors", category: "ASSESSMENT" },
  );
  const kombo = sdkFor(sandbox, integration_id);
  await kombo.assessment.setPackages({ packages: PACKAGES });
  const application = liveApplications(sandbox, integration_id)[0]!;
  const placed = await placeOrder(sandbox, integration_id, { application_id: application.id, package_id: "pkg-video" });
  assert.equal(placed.body.receiver.state, "accepted");
  assert.deepEqual(
    (await kombo.assessment.getAssessmentOrders()).result.data.results.map((o) => o.id),
    [placed.body.id],
  );
});
