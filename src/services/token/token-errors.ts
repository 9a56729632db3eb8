import type { FastifyError, FastifyInstance } from "fastify";
import { isStorageUnavailable, STORAGE_RETRY_AFTER_SECONDS } from "../../shared/db/unavailable.js";

/**
 * Errors of the token service carry the exact status and body Keycloak answers with: RFC 6749
 * `{error, error_description}` on the OpenID Connect endpoints, `{error}` / `{errorMessage}` on the
 * admin API. Thrown from grants and routes; the handlers below render them.
 */
export class KeycloakError extends Error {
  override name = "KeycloakError";
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, string>,
    readonly headers: Record<string, string> = {},
  ) {
    super(body["error_description"] ?? body["errorMessage"] ?? body["error"] ?? "error");
  }
}

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_token";

export const oauthError = (status: number, error: OAuthErrorCode, description: string, headers?: Record<string, string>) =>
  new KeycloakError(status, { error, error_description: description }, headers);

/** 400 invalid_grant: Keycloak's answer to every refresh-token problem (reference §3.3). */
export const invalidGrant = (description: string) => oauthError(400, "invalid_grant", description);
/** 401 invalid_grant "Invalid user credentials": wrong password, unknown user and locked user alike. */
export const invalidCredentials = () => oauthError(401, "invalid_grant", "Invalid user credentials");
export const invalidRequest = (description: string) => oauthError(400, "invalid_request", description);

export const adminError = (status: number, message: string) => new KeycloakError(status, { error: message });
export const adminConflict = (message: string) => new KeycloakError(409, { errorMessage: message });
export const adminBadRequest = (message: string) => new KeycloakError(400, { errorMessage: message });

type Render = (status: number, message: string) => Record<string, string>;
const adminBody: Render = (status, message): Record<string, string> => {
  if (status === 400) return { errorMessage: message };
  return { error: status >= 500 ? "unknown_error" : message };
};

/** Renders a Fastify/validation failure in the body style of the scope (OAuth or admin). */
function install(
  app: FastifyInstance,
  render: Render,
  describeValidation: (error: FastifyError) => string,
  wrongMediaType: { status: number; message: string },
): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof KeycloakError) return reply.status(error.statusCode).headers(error.headers).send(error.body);
    if (error.validation) return reply.status(400).send(render(400, describeValidation(error)));
    const status = typeof error.statusCode === "number" ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      // Body-parser failures: a body of the wrong type (415), an oversized or unreadable one.
      if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
        return reply.status(wrongMediaType.status).send(render(wrongMediaType.status, wrongMediaType.message));
      }
      return reply.status(status).send(render(status, error.message));
    }
    if (isStorageUnavailable(error)) {
      request.log.warn({ err: error }, "storage unavailable");
      return reply
        .status(503)
        .header("retry-after", String(STORAGE_RETRY_AFTER_SECONDS))
        .send(render(503, "Service temporarily unavailable; retry later"));
    }
    request.log.error({ err: error }, "unhandled error");
    return reply.status(500).send(render(500, "An internal error occurred"));
  });
}

/** OAuth scope: every failure is `{error, error_description}`; bad form input is `invalid_request`. */
export function installOAuthErrorHandler(app: FastifyInstance): void {
  install(
    app,
    (status, message) => ({
      error: status === 503 ? "temporarily_unavailable" : status >= 500 ? "server_error" : "invalid_request",
      error_description: message,
    }),
    (error) => {
      const issue = error.validation?.[0];
      const field = issue ? String(issue.instancePath.split("/")[1] ?? issue.params["missingProperty"] ?? "") : "";
      // Repeated form fields arrive as arrays; Keycloak refuses them the same way.
      return field ? `duplicated or invalid parameter: ${field}` : "Invalid request";
    },
    // Keycloak reads no form fields from a JSON body and so reports a missing one: a 400.
    { status: 400, message: "Content-Type must be application/x-www-form-urlencoded" },
  );
}

/** Admin scope: `{errorMessage}` for bad input, `{error}` otherwise, as Keycloak's admin API. */
export function installAdminErrorHandler(app: FastifyInstance): void {
  install(
    app,
    adminBody,
    (error) => {
      const issue = error.validation?.[0];
      const where = issue
        ? `${issue.instancePath || "/"}${issue.params["missingProperty"] ? `/${String(issue.params["missingProperty"])}` : ""}`
        : "";
      return `Invalid value at ${where || "body"}: ${issue?.message ?? "invalid input"}`;
    },
    { status: 415, message: "Content-Type must be application/json" },
  );
}
