import { timingSafeEqual } from "node:crypto";
import { signWebhookBody } from "../../../shared/upstream/webhook-signature.js";

function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // timingSafeEqual needs equal lengths; comparing against itself keeps the timing flat either way.
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}

export type WebhookCredentials = {
  /** `X-Upstream-Signature` or the upstream's own `X-Kombo-Signature`. */
  signature?: string | undefined;
  /** The `webhook_secret` query parameter, for senders that cannot sign. */
  querySecret?: string | undefined;
};

/**
 * An event is authentic when its signature is the HMAC of the exact bytes received, or when the
 * query secret equals the configured one. Both comparisons are constant-time. A padded signature
 * (`=` at the end) is accepted, since some senders keep base64's padding.
 */
export function isAuthentic(rawBody: Buffer, creds: WebhookCredentials, secret: string): boolean {
  if (creds.signature) {
    const given = creds.signature.trim().replace(/=+$/, "");
    if (constantTimeEqual(given, signWebhookBody(rawBody, secret))) return true;
  }
  if (creds.querySecret !== undefined && creds.querySecret !== "") {
    return constantTimeEqual(creds.querySecret, secret);
  }
  return false;
}
