import { type Static, Type } from "@sinclair/typebox";
import type { BaseConfig } from "../../shared/config.js";

/**
 * The upstream sandbox's variables: its generated data and the faults it plays (composed with the
 * shared base in src/runtime/config.ts).
 */
export const SandboxConfigSchema = Type.Object({
  SANDBOX_SEED: Type.Integer({ default: 42, description: "Seed of the sandbox's generated data." }),
  SANDBOX_APPLICATIONS: Type.Integer({
    minimum: 0,
    maximum: 1000000,
    default: 60,
    description: "Applications the sandbox generates for its demo integration.",
  }),
  SANDBOX_LATENCY_MS: Type.Integer({ minimum: 0, default: 0, description: "Latency the sandbox adds to every answer, ms." }),
  SANDBOX_RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 0,
    default: 0,
    description: "Sandbox rate limit per API key (429 + Retry-After); 0 = off.",
  }),
  SANDBOX_CONCURRENCY_LIMIT: Type.Integer({
    minimum: 0,
    default: 30,
    description: "Sandbox concurrency limit per integration on actions.",
  }),
  SANDBOX_FAULT_RATE: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0,
    description: "Share of sandbox calls that fail (5xx, timeouts, drops).",
  }),
});
export type SandboxConfig = BaseConfig & Static<typeof SandboxConfigSchema>;
