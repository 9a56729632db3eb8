import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AssessmentPackageInput, Hirebridge, NotFoundError, ValidationError } from "../../../src/client/index.js";
import { type AssessmentEnv, assessmentEnv, eventually, orderView, placeOrder } from "./assessment-env.js";
import { startEmbeddedStack, type EmbeddedStack } from "./embedded-stack.js";

/**
 * The SDK's assessment calls against the embedded stack: packages read and replaced in the ATS
 * through the proxy, the organisation's templates republished, orders listed live and as
 * Hirebridge received them, and a result written on an order.
 */
describe("SDK: assessment packages and orders", () => {
  let env: EmbeddedStack;
  let hb: Hirebridge;
  let a: AssessmentEnv;
  before(async () => {
    env = await startEmbeddedStack();
    hb = new Hirebridge({
      authUrl: env.authUrl,
      apiUrl: env.apiUrl,
      proxyUrl: env.proxyUrl,
      credentials: { username: env.demo.username, password: env.demo.password },
    });
    a = await assessmentEnv(env, hb);
  });
  after(() => env.close());

  test("packages: publish sends the templates, list reads them from the ATS, set replaces them", async () => {
    const published = await hb.assessment.packages.publish(a.integrationId);
    const mine = published.packages.find((p) => p.id === a.templateId);
    assert.deepEqual(mine, { id: a.templateId, type: "VIDEO_INTERVIEW", name: a.templateName, description: "Systems and reliability" });
    assert.ok(!Number.isNaN(Date.parse(published.published_at)));

    const listed = await hb.assessment.packages.list(a.integrationId);
    assert.equal(listed.status, "success");
    const inAts = listed.data.packages.find((p) => p.id === a.templateId);
    assert.equal(inAts?.name, a.templateName);
    assert.equal(inAts?.type, "VIDEO_INTERVIEW");

    const extra = { id: "sdk-extra", type: "SKILLS_TEST" as const, name: "Extra test", description: "Set by hand" };
    const kept: AssessmentPackageInput[] = listed.data.packages.map(({ id, type, name, description }) => ({
      id,
      type: (type ?? "VIDEO_INTERVIEW") as AssessmentPackageInput["type"],
      name,
      description,
    }));
    const set = await hb.assessment.packages.set(a.integrationId, [...kept, extra]);
    assert.equal(set.status, "success");
    const after = await hb.assessment.packages.list(a.integrationId);
    assert.deepEqual(after.data.packages.map((p) => p.id).sort(), [...kept.map((p) => p.id), extra.id].sort());
    // Republishing puts the templates back as the whole list.
    const again = await hb.assessment.packages.publish(a.integrationId);
    assert.deepEqual(
      (await hb.assessment.packages.list(a.integrationId)).data.packages.map((p) => p.id).sort(),
      again.packages.map((p) => p.id).sort(),
    );
  });

  test("orders: listed live from the ATS and as Hirebridge received them; a result written on one", async () => {
    await hb.assessment.packages.publish(a.integrationId);
    const order = await placeOrder(env, a, a.templateId);
    const live = [];
    for await (const o of hb.assessment.orders.iterate({ integration_id: a.integrationId, statuses: "OPEN" })) live.push(o);
    const seen = live.find((o) => o.id === order.id);
    assert.equal(seen?.package_id, a.templateId);
    assert.equal(seen?.candidate.email, "grace@example.com");

    const received = await eventually("the order received by Hirebridge", async () => {
      for await (const o of hb.assessment.iterateReceivedOrders(a.integrationId, { limit: 1 })) {
        if (o.order_id === order.id && o.candidate_id) return o;
      }
      return undefined;
    });
    assert.equal(received.status, "accepted");
    assert.equal(received.result_status, "OPEN");
    assert.equal(received.package_name, a.templateName);
    assert.equal(received.candidate_name, "Grace Hopper");

    const written = await hb.assessment.orders.updateResult(a.integrationId, order.id, {
      status: "CANCELLED",
      result_url: "https://hirebridge.example/results/cancelled",
      completed_at: new Date().toISOString(),
    });
    assert.equal(written.status, "success");
    const view = await orderView(env, a, order.id);
    assert.equal(view.status, "CANCELLED");
    assert.equal(view.result?.result_url, "https://hirebridge.example/results/cancelled");
  });

  test("errors: an unknown integration is NotFoundError, a bad body ValidationError with its detail", async () => {
    await assert.rejects(hb.assessment.packages.list("workday:doesNotExist"), NotFoundError);
    await assert.rejects(hb.assessment.iterateReceivedOrders("workday:doesNotExist").next(), NotFoundError);
    await assert.rejects(
      hb.assessment.packages.set(a.integrationId, [{ id: "x", type: "QUIZ" as never, name: "x", description: "" }]),
      (err: unknown) => {
        assert.ok(err instanceof ValidationError);
        assert.deepEqual(
          err.detail.map((d) => d.loc),
          [["body", "packages", 0, "type"]],
        );
        return true;
      },
    );
  });
});
