/**
 * `hirebridge/client`: the typed client of the Hirebridge recruiting API and integration proxy,
 * with the token lifecycle of the spec built in. Runs in browsers and in Node 20+ (no Node-only
 * imports); request and response types come from the servers' own contracts.
 */
export { Hirebridge, type HirebridgeOptions } from "./hirebridge.js";
export { HirebridgeAdmin, UsersAdmin, type HirebridgeAdminOptions, type NewUser } from "./admin/keycloak-admin.js";
export { TokenManager, type CredentialsSource, type TokenManagerOptions } from "./auth/token-manager.js";
export type { Credentials, Session, SessionInput } from "./auth/token-endpoint.js";
export {
  AbortedError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  HirebridgeError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UpstreamUnavailableError,
  ValidationError,
  type AuthenticationFailure,
  type ValidationIssue,
} from "./core/errors.js";
export { systemClock, type Clock } from "./core/clock.js";
export { isFinalRun, modelsOf, type SyncModel } from "./proxy/sync.js";
export { verifyWebhook, WebhookVerificationError, type VerifyOptions, type WebhookEvent } from "./webhooks/verify.js";
export type { FetchLike } from "./core/transport.js";
export type { RequestOptions } from "./core/http-client.js";
export type * from "./types.js";
