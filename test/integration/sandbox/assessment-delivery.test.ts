/**
 * The order webhook's delivery when the receiver does not answer at once: retried in the
 * background with the later answer landing on the order, or not sent at all without a receiver.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startSandbox } from "../../helpers/sandbox.js";
import { PACKAGES, assessmentSetup, liveApplications, orderView, placeOrder } from "./assessment-setup.js";
import { sdkFor } from "./sdk.js";

test("a failing receiver is retried in the background; its later answer lands on the order", async (t) => {
  // First attempt 503, the second rejects.
  const { sandbox, id } = await assessmentSetup(t, (r, n) =>
    r.body.type === "integration-created" ? 200 : n <= 2 ? 503 : { status: 422, body: { message: "Candidate already assessed." } },
  );
  const application = liveApplications(sandbox, id)[0]!;
  const placed = await placeOrder(sandbox, id, { application_id: application.id, package_id: "pkg-video" });
  assert.deepEqual({ status: placed.body.status, state: placed.body.receiver.state }, { status: "OPEN", state: "retrying" });
  let view = placed.body;
  for (let i = 0; i < 100 && view.receiver.state === "retrying"; i++) {
    await new Promise((r) => setTimeout(r, 20));
    view = (await orderView(sandbox, id, placed.body.id)).body;
  }
  assert.deepEqual(
    { status: view.status, message: view.rejection_message, state: view.receiver.state },
    { status: "REJECTED", message: "Candidate already assessed.", state: "rejected" },
  );
});

test("without a receiver the order stays OPEN and says it was not sent", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  await sdkFor(sandbox).assessment.setPackages({ packages: PACKAGES });
  const application = liveApplications(sandbox, sandbox.demoIntegrationId)[0]!;
  const placed = await placeOrder(sandbox, sandbox.demoIntegrationId, { application_id: application.id, package_id: "pkg-skills" });
  assert.equal(placed.status, 201);
  assert.deepEqual({ status: placed.body.status, state: placed.body.receiver.state }, { status: "OPEN", state: "not_sent" });
  assert.equal(sandbox.context.webhooks.deliveries().at(-1)?.type, "assessment:order-received", "the event is logged all the same");
});
