/**
 * Assessment orders in the activity trail over real HTTP (docs/assessments.md): an order received
 * (accepted) and one rejected are entries that name the candidate and the package, and the order's
 * result is its write-back's entry ("result written") with the package's name; the candidate's and
 * kind filters find them, and another organisation sees none of it.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Kombo } from "@kombo-api/sdk";
import type { ActivityItem, ActivityPage } from "../../../src/contracts/proxy/activity.js";
import type { AssessmentOrderPage } from "../../../src/contracts/proxy/assessment-orders.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

type OrderView = { id: string; receiver: { state: string } };

describeEachDatabase("activity trail: assessment orders", (getDb) => {
  let stack: TestStack;
  let token: string;
  let orgId: string;
  let integrationId: string;
  let template: { id: string; name: string };
  const enc = () => encodeURIComponent(integrationId);
  const items = async (query = "", bearer = token) => {
    const res = await call<ActivityPage>(`${stack.proxyUrl}/integrations/${enc()}/activity${query}`, { token: bearer });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items;
  };
  const applications = async () =>
    (await call<{ applications: { id: string }[] }>(`${stack.sandbox.origin}/sandbox/integrations/${enc()}/applications?limit=5`)).body
      .applications;
  const placeOrder = async (body: Record<string, unknown>) => {
    const res = await call<OrderView>(`${stack.sandbox.origin}/sandbox/integrations/${enc()}/assessment-orders`, { method: "POST", body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };

  before(async () => {
    stack = await startTestStack(getDb());
    const login = await stack.login();
    token = login.accessToken;
    orgId = login.orgId;
    const res = await call<{ id: string; name: string }>(`${stack.apiUrl}/org/${orgId}/position`, {
      method: "POST",
      token,
      body: { name: "Support engineer screen", state: "template", role_description: "Troubleshooting", min_score: 50 },
    });
    assert.equal(res.status, 200);
    template = res.body;
    const created = await call<{ id: string }>(`${stack.sandbox.origin}/sandbox/integrations`, {
      method: "POST",
      body: { category: "ASSESSMENT", org_id: orgId },
    });
    assert.equal(created.status, 201);
    integrationId = created.body.id;
    await eventually("the integration recorded", async () =>
      (await call(`${stack.proxyUrl}/integrations/${enc()}/summary`, { token })).status === 200 ? true : undefined,
    );
    const published = await call(`${stack.proxyUrl}/integrations/${enc()}/assessment/packages/publish`, { method: "POST", token });
    assert.equal(published.status, 200, JSON.stringify(published.body));
  });
  after(() => stack?.close());

  test("an order received, one rejected, and the result written are entries by name; filters and tenants hold", async () => {
    const [first, second] = await applications();
    const accepted = await placeOrder({ application_id: first!.id, package_id: template.id });
    assert.equal(accepted.receiver.state, "accepted");
    // An ATS with a stale list offers a package Hirebridge does not have: its order is rejected.
    const kombo = new Kombo({ api_key: stack.sandbox.apiKey, integration_id: integrationId, server_url: stack.sandbox.url });
    await kombo.assessment.setPackages({
      packages: [
        { id: template.id, type: "VIDEO_INTERVIEW", name: template.name, description: "x" },
        { id: "retired-screen", type: "VIDEO_INTERVIEW", name: "Retired screen", description: "x" },
      ],
    });
    const rejected = await placeOrder({ application_id: second!.id, package_id: "retired-screen" });
    assert.equal(rejected.receiver.state, "rejected");

    const orders = (await call<AssessmentOrderPage>(`${stack.proxyUrl}/integrations/${enc()}/assessment/orders`, { token })).body.items;
    const order = orders.find((o) => o.order_id === accepted.id)!;
    assert.ok(order.candidate_id && order.candidate_name && order.position_id);

    const trail = await items("?kind=assessment_order");
    assert.equal(trail.length, 2);
    const received = trail.find((i) => i.assessment_order?.order_id === accepted.id)!;
    assert.equal(received.status, "accepted");
    assert.equal(received.summary, `Assessment order received: ${order.candidate_name} for package ${template.name}; interview created`);
    assert.deepEqual(received.candidate, { id: order.candidate_id, name: order.candidate_name });
    assert.equal(received.position?.id, order.position_id);
    assert.equal(received.assessment_order?.package_name, template.name);
    assert.equal(received.retryable, false);
    const refused = trail.find((i) => i.assessment_order?.order_id === rejected.id)!;
    assert.equal(refused.status, "rejected");
    assert.equal(refused.summary, "Assessment order rejected: package retired-screen");
    assert.ok(refused.error && refused.error.length > 0, "the recruiter's message is the entry's error");
    assert.equal(refused.candidate, null);
    assert.deepEqual(
      (await items("?kind=assessment_order&status=rejected")).map((i) => i.id),
      [refused.id],
    );

    // Graded: the result goes on the order; its write-back is the "result written" entry.
    const interviewUrl = `${stack.apiUrl}/org/${orgId}/positions/${order.position_id}/candidates/${order.candidate_id}/interview/`;
    assert.equal((await call(interviewUrl, { method: "PUT", token, body: { status: "completed" } })).status, 200);
    assert.equal(
      (await call(interviewUrl, { method: "PUT", token, body: { status: "graded", score: 64, feedback: "Calm." } })).status,
      200,
    );
    const written = await eventually("the result written on the order", async () => {
      const mine = await items(`?candidate_id=${order.candidate_id}`);
      const wb = mine.find((i) => i.kind === "write_back" && i.status === "done" && i.summary.endsWith(": completed"));
      return wb ? { wb, mine } : undefined;
    });
    assert.equal(written.wb.summary, `Assessment order result written: ${order.candidate_name} (package ${template.name}): completed`);
    assert.equal(written.wb.assessment_order?.result_status, "COMPLETED");
    // The candidate's trail holds its order and its result, newest first.
    assert.deepEqual(
      written.mine.map((i: ActivityItem) => i.kind),
      ["write_back", "assessment_order"],
    );

    // Another organisation sees nothing of the integration's trail.
    const other = await stack.login();
    const res = await call(`${stack.proxyUrl}/integrations/${enc()}/activity?kind=assessment_order`, { token: other.accessToken });
    assert.equal(res.status, 404);
  });
});
