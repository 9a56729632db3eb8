import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Kombo } from "@kombo-api/sdk";
import type { AssessmentOrder, AssessmentOrderPage } from "../../../src/contracts/proxy/assessment-orders.js";
import type { Position } from "../../../src/contracts/recruiting/positions.js";
import type { WebhookEndpointCreated } from "../../../src/contracts/webhooks-out/endpoints.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";
import { type Receiver, startReceiver } from "./receiver.js";

/**
 * The assessment channel's outbound events (docs/webhooks-out.md, docs/assessments.md): an order
 * placed in the ATS (the sandbox's admin action) and accepted arrives as `assessment_order.received`,
 * its graded or cancelled interview as `assessment_order.completed`, each once, signed (verified
 * with `standardwebhooks`), its data the order as Hirebridge's listing shows it (ids and status, no
 * personal data). A rejected order sends neither.
 */
describeEachDatabase("webhooks out: assessment order events", (getDb) => {
  let stack: TestStack;
  let rx: Receiver;
  before(async () => {
    stack = await startTestStack(getDb(), { config: { WEBHOOK_TARGETS: "loopback", WEBHOOK_RETRY_SCHEDULE: "0s,50ms" } });
    rx = await startReceiver();
  });
  after(async () => {
    await stack.close();
    await rx.close();
  });

  /** The event's data as the order listing shows the order. */
  const eventData = (o: AssessmentOrder) => ({
    id: o.id,
    integration_id: o.integration_id,
    order_id: o.order_id,
    package_id: o.package_id,
    position_id: o.position_id,
    candidate_id: o.candidate_id,
    inline: o.inline,
    status: o.status,
    result_status: o.result_status,
  });

  test("an order accepted, then graded or cancelled: received and completed arrive once each, signed, as the listing shows the order", async () => {
    const user = await stack.login();
    const { accessToken: token, orgId } = user;
    const org = `${stack.apiUrl}/org/${orgId}`;
    const endpoint = await call<WebhookEndpointCreated>(`${org}/webhook-endpoints`, { method: "POST", token, body: { url: rx.url } });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    rx.secrets.push(endpoint.body.secret);
    const template = await call<Position>(`${org}/position`, {
      method: "POST",
      token,
      body: { name: "Events interview", state: "template", role_description: "Events" },
    });
    assert.equal(template.status, 200);

    const sandbox = (method: string, path: string, body?: unknown) =>
      call<{ id: string; status: string; receiver: { state: string } }>(`${stack.sandbox.origin}${path}`, {
        method,
        ...(body !== undefined ? { body } : {}),
      });
    const created = await sandbox("POST", "/sandbox/integrations", { category: "ASSESSMENT", org_id: orgId });
    assert.equal(created.status, 201);
    const integrationId = created.body.id;
    const kombo = new Kombo({ api_key: stack.sandbox.apiKey, integration_id: integrationId, server_url: stack.sandbox.url });
    await eventually("the template published", async () =>
      (await kombo.assessment.getPackages()).data.packages.some((p) => p.id === template.body.id) ? true : undefined,
    );
    const apps = [...stack.sandbox.context.store.get(integrationId)!.data.applications.values()]
      .filter((a) => a.deletedAt === null)
      .map((a) => a.id);
    const ordersUrl = `${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/assessment/orders`;
    const listed = async (orderId: string) =>
      (await call<AssessmentOrderPage>(ordersUrl, { token })).body.items.find((o) => o.order_id === orderId)!;
    const place = async (application: string, packageId: string) =>
      (
        await sandbox("POST", `/sandbox/integrations/${encodeURIComponent(integrationId)}/assessment-orders`, {
          application_id: application,
          package_id: packageId,
        })
      ).body;

    // Rejected first (a package the ATS offers that is no template here): no event for it.
    await kombo.assessment.setPackages({
      packages: [
        { id: template.body.id, type: "VIDEO_INTERVIEW", name: "Events interview", description: "Events" },
        { id: "pkg-unknown", type: "VIDEO_INTERVIEW", name: "Unknown", description: "?" },
      ],
    });
    const rejected = await place(apps[0]!, "pkg-unknown");
    assert.equal(rejected.status, "REJECTED");
    const graded = await place(apps[1]!, template.body.id);
    const cancelled = await place(apps[2]!, template.body.id);
    assert.deepEqual([graded.receiver.state, cancelled.receiver.state], ["accepted", "accepted"]);

    const ofOrder = (type: string, orderId: string) => (d: { type: string; data: Record<string, unknown> }) =>
      d.type === type && d.data["order_id"] === orderId;
    await rx.waitFor(
      (d) => d.some(ofOrder("assessment_order.received", graded.id)) && d.some(ofOrder("assessment_order.received", cancelled.id)),
    );
    for (const order of [graded, cancelled]) {
      const received = rx.deliveries.filter(ofOrder("assessment_order.received", order.id));
      assert.equal(received.length, 1);
      assert.deepEqual(received[0]!.data, { ...eventData(await listed(order.id)), result_status: "OPEN" });
    }

    // The interviews end: graded (a result with a score) and cancelled.
    for (const [order, steps] of [
      [graded, [{ status: "completed" }, { status: "graded", score: 64, feedback: "Fine." }]],
      [cancelled, [{ status: "cancelled" }]],
    ] as const) {
      const row = await listed(order.id);
      const interview = `${org}/positions/${row.position_id}/candidates/${row.candidate_id}/interview/`;
      for (const body of steps) assert.equal((await call(interview, { method: "PUT", token, body })).status, 200);
    }
    await rx.waitFor(
      (d) => d.some(ofOrder("assessment_order.completed", graded.id)) && d.some(ofOrder("assessment_order.completed", cancelled.id)),
      30_000,
    );
    for (const [order, status] of [
      [graded, "COMPLETED"],
      [cancelled, "CANCELLED"],
    ] as const) {
      const completed = rx.deliveries.filter(ofOrder("assessment_order.completed", order.id));
      assert.equal(completed.length, 1);
      const row = await listed(order.id);
      assert.equal(row.result_status, status);
      assert.deepEqual(completed[0]!.data, eventData(row));
      // Ids and status only: nothing of the candidate's name or e-mail.
      assert.doesNotMatch(completed[0]!.body, /@/);
    }

    assert.deepEqual(
      rx.deliveries.filter((d) => d.data["order_id"] === rejected.id).map((d) => d.type),
      [],
      "a rejected order sends no event",
    );
    assert.deepEqual(
      rx.deliveries.filter((d) => d.verifiedWith.length !== 1).map((d) => d.type),
      [],
      "every delivery verifies with standardwebhooks",
    );
  });
});
