import { type Static, Type } from "@sinclair/typebox";
import type { BaseConfig } from "../../shared/config.js";

/**
 * The integration proxy's variables: its upstream client's timeout and retries, and the cache of
 * integration details (composed with the shared base in src/runtime/config.ts).
 */
export const ProxyConfigSchema = Type.Object({
  UPSTREAM_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 15000, description: "Timeout of one upstream call, ms." }),
  INTEGRATION_CACHE_TTL_SECONDS: Type.Integer({
    minimum: 0,
    default: 60,
    description: "How long integration details are cached, seconds.",
  }),
  UPSTREAM_RETRIES: Type.Integer({
    minimum: 0,
    maximum: 10,
    default: 2,
    description: "Proxy: retries of an upstream read after 429, 5xx or a connection failure (writes: only when nothing was sent).",
  }),
  UPSTREAM_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    default: 200,
    description: "Proxy: first retry backoff step, ms (doubles, jittered).",
  }),
  UPSTREAM_RETRY_MAX_WAIT_MS: Type.Integer({
    minimum: 0,
    default: 5000,
    description: "Proxy: most time spent waiting between retries of one call, ms (all within UPSTREAM_TIMEOUT_MS).",
  }),
});
export type ProxyConfig = BaseConfig & Static<typeof ProxyConfigSchema>;
