import { type Static, Type } from "@sinclair/typebox";
import type { BaseConfig } from "../../shared/config.js";

/**
 * The token service's variables: what `serve token` parses besides the shared base (the slices are
 * composed in src/runtime/config.ts). Only the token service reads them.
 */
export const TokenConfigSchema = Type.Object({
  AUTH_ACCESS_TOKEN_ALG: Type.Union([Type.Literal("RS256"), Type.Literal("ES256")], {
    default: "RS256",
    description:
      "Signature algorithm of access and ID tokens: RS256 (RSA-2048) or ES256 (ECDSA P-256, a cheaper signature). The JWKS publishes the keys of both while tokens they signed may still be in use; refresh tokens stay HS512.",
  }),
  ACCESS_TOKEN_LIFESPAN: Type.Integer({ minimum: 1, default: 1800, description: "Access token lifetime, seconds." }),
  REFRESH_TOKEN_LIFESPAN: Type.Integer({
    minimum: 1,
    default: 1800,
    description: "Refresh token lifetime (SSO idle), seconds; each refresh slides it.",
  }),
  SESSION_MAX_LIFESPAN: Type.Integer({ minimum: 1, default: 36000, description: "Longest a login session lives (SSO max), seconds." }),
  BRUTE_FORCE_MAX_FAILURES: Type.Integer({ minimum: 1, default: 5, description: "Failed logins before a user is locked out for a while." }),
  BRUTE_FORCE_LOCKOUT_SECONDS: Type.Integer({ minimum: 1, default: 60, description: "How long a lockout lasts, seconds." }),
  PASSWORD_RESET_ENDS_SESSIONS: Type.Boolean({
    default: true,
    description:
      "A password set through the admin API (reset-password, or credentials in a user update) ends the user's sessions: their refresh tokens stop working.",
  }),
  PASSWORD_HASH_MEMORY_KIB: Type.Integer({
    minimum: 1024,
    maximum: 4194304,
    default: 19456,
    description:
      "argon2id memory per password hash, KiB (19456 = 19 MiB, OWASP's minimum; with the defaults one hash takes about 26 ms of one core, see docs/token-service.md). Lower values are for tests only. Stored hashes keep theirs until the next login.",
  }),
  PASSWORD_HASH_PASSES: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 2,
    description: "argon2id passes (time cost) per password hash; OWASP's minimum with 19 MiB is 2.",
  }),
  PASSWORD_HASH_PARALLELISM: Type.Integer({ minimum: 1, maximum: 16, default: 1, description: "argon2id lanes per password hash." }),
  ADMIN_PASSWORD: Type.String({
    default: "admin-password",
    minLength: 1,
    description: "Password of `admin` in realm master (admin REST API).",
  }),
  DEMO_PASSWORD: Type.String({ default: "demo-password", minLength: 1, description: "Password of the demo user created on first start." }),
  TOKEN_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 300,
    description: "Requests per minute per client address on the token service (brute-force lockout applies besides). 0 = off.",
  }),
});
export type TokenConfig = BaseConfig & Static<typeof TokenConfigSchema>;
