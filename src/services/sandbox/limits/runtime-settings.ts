/**
 * The sandbox's realism knobs. Start-up values come from the configuration; `PUT /sandbox/config`
 * changes them at run time so tests can drive a client through each failure deterministically.
 */
import { type Static, Type } from "@sinclair/typebox";

export const FAULT_KINDS = ["500", "502", "503", "timeout", "drop"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const RuntimeSettingsSchema = Type.Object({
  latency_ms: Type.Integer({ minimum: 0, maximum: 600_000, description: "Added to every /v1 request." }),
  rate_limit_per_second: Type.Integer({ minimum: 0, description: "Requests per second over all /v1 calls; 0 = off." }),
  rate_limit_path_prefix: Type.Union([Type.Null(), Type.String({ minLength: 1 })], {
    description: "Only requests whose path after /v1 starts with this are rate-limited and spend the limit; null = all.",
  }),
  concurrency_limit: Type.Integer({ minimum: 0, description: "In-flight actions per integration; 0 = off." }),
  fault_rate: Type.Number({ minimum: 0, maximum: 1, description: "Share of /v1 requests that fail." }),
  fault_kinds: Type.Array(Type.Union(FAULT_KINDS.map((k) => Type.Literal(k))), { minItems: 1, uniqueItems: true }),
  fault_timeout_ms: Type.Integer({ minimum: 0, maximum: 600_000, description: "How long a `timeout` fault holds the request before 504." }),
  fault_path_prefix: Type.Union([Type.Null(), Type.String({ minLength: 1 })], {
    description: "Only requests whose path after /v1 starts with this are subject to faults.",
  }),
  fail_next: Type.Integer({ minimum: 0, description: "The next N matching requests fail (kinds in turn), whatever fault_rate says." }),
  webhook_url: Type.Union([Type.Null(), Type.String({ pattern: "^https?://" })], {
    description: "Receiver base; events go to <base>/<type>. null disables delivery.",
  }),
});
export type RuntimeSettings = Static<typeof RuntimeSettingsSchema>;

export const RuntimeSettingsPatchSchema = Type.Partial(RuntimeSettingsSchema, { additionalProperties: false });
export type RuntimeSettingsPatch = Static<typeof RuntimeSettingsPatchSchema>;
