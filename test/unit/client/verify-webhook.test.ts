import assert from "node:assert/strict";
import { test } from "node:test";
import { Webhook } from "standardwebhooks";
import { verifyWebhook, WebhookVerificationError } from "../../../src/client/index.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = JSON.stringify({
  type: "candidate.created",
  timestamp: "2026-11-26T10:00:00.000Z",
  data: { id: "c1", email: "ada@example.com" },
});

/** Headers of a delivery signed by the official `standardwebhooks` package (not our signing code). */
function signed(secret: string, at = new Date(), id = "01a2b3c4-0000-7000-8000-000000000001") {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
}

test("the SDK's verifyWebhook accepts what standardwebhooks signs and answers the event", async () => {
  const event = await verifyWebhook(body, signed(SECRET), SECRET);
  assert.deepEqual(event, { id: "01a2b3c4-0000-7000-8000-000000000001", ...JSON.parse(body) });
  // A Fetch API Headers object and bytes work too; and any of several secrets (a rotation).
  const headers = new Headers(signed(SECRET));
  const other = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  assert.equal((await verifyWebhook(new TextEncoder().encode(body), headers, [other, SECRET])).type, "candidate.created");
});

test("the SDK's verifyWebhook refuses a wrong secret, a changed body, an old delivery and missing headers", async () => {
  const other = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  await assert.rejects(verifyWebhook(body, signed(other), SECRET), WebhookVerificationError);
  await assert.rejects(verifyWebhook(body.replace("ada", "eve"), signed(SECRET), SECRET), /No matching signature/);
  await assert.rejects(verifyWebhook(body, signed(SECRET, new Date(Date.now() - 3600_000)), SECRET), /too old/);
  await assert.rejects(verifyWebhook(body, { "webhook-id": "x" }, SECRET), /Missing/);
});
