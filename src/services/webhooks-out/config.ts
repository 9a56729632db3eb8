import { type Static, Type } from "@sinclair/typebox";
import type { BaseConfig } from "../../shared/config.js";

/**
 * Outbound webhooks' variables (`serve api` and `serve proxy` parse them: both services record
 * events; src/runtime/config.ts).
 */
export const WebhooksOutConfigSchema = Type.Object({
  WEBHOOK_TARGETS: Type.Optional(
    Type.Union([Type.Literal("public"), Type.Literal("loopback"), Type.Literal("any")], {
      description:
        "Where outbound webhook endpoints may point, checked when an endpoint is saved and on every connection (DNS rebinding): `public` (HTTPS to public addresses only; no loopback, private, link-local or metadata address), `loopback` (also http and this machine, for receiving locally), `any` (no check). Default: `loopback` on the embedded default (no DATABASE_URL), else `public`.",
    }),
  ),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60000,
    default: 15000,
    description: "Outbound webhooks: time an endpoint has to answer one delivery attempt, ms (then the attempt failed).",
  }),
  WEBHOOK_RETRY_SCHEDULE: Type.String({
    pattern: "^\\d+(ms|s|m|h)(,\\d+(ms|s|m|h))*$",
    default: "0s,5s,5m,30m,2h,5h,10h",
    description:
      "Outbound webhooks: the delay before each attempt of a delivery (the first from the event, each next from the failure before it), comma-separated with a unit (ms, s, m, h); after the last the delivery failed.",
  }),
  WEBHOOK_DISABLE_AFTER_SECONDS: Type.Integer({
    minimum: 1,
    default: 432000,
    description:
      "Outbound webhooks: an endpoint whose every attempt failed for this long is disabled, with the reason (default 5 days); an answer 410 Gone disables it at once.",
  }),
  WEBHOOK_SECRET_OVERLAP_SECONDS: Type.Integer({
    minimum: 0,
    default: 86400,
    description: "Outbound webhooks: after a secret rotation, how long deliveries are also signed with the old secret, seconds.",
  }),
  WEBHOOK_LEASE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 60,
    description:
      "Outbound webhooks: an event or retry an instance claimed goes to another instance after this long without being done (its instance died). Longer than WEBHOOK_TIMEOUT_MS.",
  }),
  WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES: Type.Number({
    exclusiveMinimum: 0,
    maximum: 10080,
    default: 60,
    description:
      "Outbound webhooks: a temporary endpoint (`hirebridge webhooks listen`'s) is deleted by itself after this long without a keep-alive from its client, minutes (fractions allowed); the sweep job looks every minute.",
  }),
  WEBHOOK_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description: "Outbound webhooks: delivered events and their attempts are kept this long, days.",
  }),
});
export type WebhooksOutConfig = BaseConfig & Static<typeof WebhooksOutConfigSchema>;
