/**
 * Results written back on assessment orders through the official SDK: score, attributes and files
 * as the ATS shows them, the status rule, input validation, and data_url downloads.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { KomboAtsError } from "@kombo-api/sdk/models/errors";
import type { TestSandbox } from "../../helpers/sandbox.js";
import { PDF, assessmentSetup, liveApplications, orderView, threeOrders } from "./assessment-setup.js";
import { admin, sdkFor } from "./sdk.js";

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
