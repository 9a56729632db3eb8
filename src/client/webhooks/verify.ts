import type { EventData, EventType } from "../../contracts/webhooks-out/events.js";
import { HirebridgeError } from "../core/errors.js";

/** A delivery that is not Hirebridge's, or not this one: refuse it (answer 400 or 401). */
export class WebhookVerificationError extends HirebridgeError {
  override name = "WebhookVerificationError";
}

/** A verified event: its id (the `webhook-id`, the same on every attempt: deduplicate on it), type, time and data. */
export type WebhookEvent = { [T in EventType]: { id: string; type: T; timestamp: string; data: EventData<T> } }[EventType];

export type VerifyOptions = {
  /** How far the delivery's `webhook-timestamp` may be from now, seconds (default 300, as Standard Webhooks advises). */
  toleranceSeconds?: number;
  /** Now, ms since the epoch (tests). */
  now?: () => number;
};

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  return undefined;
}

const bytesOf = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const base64Of = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** Equal strings, compared in time that depends only on their length (signatures have one length). */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

async function signature(secret: string, content: string): Promise<string> {
  const raw = bytesOf(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return base64Of(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(content)));
}

/**
 * Verifies a delivery of Hirebridge's outbound webhooks (Standard Webhooks: HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}` with the endpoint's `whsec_` secret) and answers its
 * event; throws WebhookVerificationError otherwise. Give it the RAW body, byte for byte as
 * received (not re-serialised JSON), and, during a secret rotation, both secrets. Web Crypto only:
 * it runs in Node 20+, browsers and edge runtimes (the `standardwebhooks` package verifies the same
 * deliveries).
 * @example
 * const event = await verifyWebhook(rawBody, request.headers, endpointSecret);
 * if (await alreadyHandled(event.id)) return; // at least once: deduplicate on the id
 * if (event.type === "candidate.created") await invite(event.data.email);
 */
export async function verifyWebhook(
  payload: string | Uint8Array,
  headers: HeaderSource,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature");
  const seconds = Number(timestamp);
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  if (!Number.isInteger(seconds)) throw new WebhookVerificationError("Invalid webhook-timestamp");
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError("Message timestamp too old or too new");
  const body = typeof payload === "string" ? payload : new TextDecoder().decode(payload);
  const given = signatures.split(" ").flatMap((s) => (s.startsWith("v1,") ? [s.slice(3)] : []));
  for (const s of typeof secret === "string" ? [secret] : secret) {
    const expected = await signature(s, `${id}.${timestamp}.${body}`);
    if (given.some((g) => sameText(g, expected))) {
      const parsed = JSON.parse(body) as Omit<WebhookEvent, "id">;
      return { id, ...parsed } as WebhookEvent;
    }
  }
  throw new WebhookVerificationError("No matching signature found");
}
