import assert from "node:assert/strict";
import { test } from "node:test";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { isAuthentic } from "../../../src/services/sync/webhooks/verify-signature.js";

// The reference's known vector (shared/reference/upstream-kombo.md, section 5).
const BODY = JSON.stringify({
  id: "5gjAtURLPbnTiwgkaBfiA3WJ",
  type: "data-changed",
  data: {
    integration_id: "greenhouse:8d1hpPsbjxUkoCoa1veLZGe5",
    integration_tool: "greenhouse",
    integration_category: "ATS",
    changed_models: [{ name: "ats_applications" }],
  },
});

test("a known body and secret give the upstream's known signature", () => {
  assert.equal(signWebhookBody(BODY, "whsec_test"), "Pd511o9CIab70azkAgQO6TPo-3sZosRusk9Xa1f2ODY");
});

test("the signature must match the exact bytes and the secret", () => {
  const raw = Buffer.from(BODY);
  const sig = "Pd511o9CIab70azkAgQO6TPo-3sZosRusk9Xa1f2ODY";
  assert.equal(isAuthentic(raw, { signature: sig }, "whsec_test"), true);
  assert.equal(isAuthentic(raw, { signature: `${sig}=` }, "whsec_test"), true);
  assert.equal(isAuthentic(raw, { signature: sig }, "other-secret"), false);
  assert.equal(isAuthentic(Buffer.from(`${BODY} `), { signature: sig }, "whsec_test"), false);
  assert.equal(isAuthentic(raw, { signature: "short" }, "whsec_test"), false);
  assert.equal(isAuthentic(raw, {}, "whsec_test"), false);
});

test("the query secret is an alternative, compared exactly", () => {
  const raw = Buffer.from(BODY);
  assert.equal(isAuthentic(raw, { querySecret: "whsec_test" }, "whsec_test"), true);
  assert.equal(isAuthentic(raw, { querySecret: "whsec_tes" }, "whsec_test"), false);
  assert.equal(isAuthentic(raw, { querySecret: "" }, "whsec_test"), false);
  assert.equal(isAuthentic(raw, { signature: "bad", querySecret: "whsec_test" }, "whsec_test"), true);
});
