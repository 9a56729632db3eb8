/**
 * One error class per failure a caller handles differently. API errors are built from the response
 * by `ApiError.fromResponse`; network failures, timeouts and aborts have their own classes; token
 * endpoint refusals are `AuthenticationError`. Messages carry the method, path and server detail,
 * never credentials, tokens or query strings.
 */
import { parseRetryAfter } from "../../contracts/retry-after.js";

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

export class HirebridgeError extends Error {
  override name = "HirebridgeError";
}

/** A constructor option was wrong (for example an auth URL over plain HTTP to a remote host). */
export class ConfigurationError extends HirebridgeError {
  override name = "ConfigurationError";
}

type RequestInfo = { method: string; url: string };

export class ApiError extends HirebridgeError {
  override name = "ApiError";
  /** The `X-Request-Id` the server answered with: quote it when reporting a problem. */
  readonly requestId: string | null;
  readonly method: string;
  /** Path of the failed call, without the query string. */
  readonly path: string;

  constructor(
    readonly status: number,
    /** The parsed JSON error body (or text when the body was not JSON). */
    readonly body: unknown,
    readonly headers: Headers,
    request: RequestInfo,
  ) {
    const path = safePath(request.url);
    super(`${request.method} ${path} failed with ${status}: ${describeBody(body, status)}`);
    this.requestId = headers.get("x-request-id");
    this.method = request.method;
    this.path = path;
  }

  /** What the server said went wrong, in one line (its `detail`, error message or description). */
  get serverDetail(): string {
    return describeBody(this.body, this.status);
  }

  /** The error class matching `status`; the base class for statuses without one. */
  static fromResponse(status: number, body: unknown, headers: Headers, request: RequestInfo): ApiError {
    const Class = STATUS_CLASSES[status];
    if (Class) return new Class(status, body, headers, request);
    if (status >= 500) return new ServerError(status, body, headers, request);
    return new ApiError(status, body, headers, request);
  }
}

export class BadRequestError extends ApiError {
  override name = "BadRequestError";
}
export class UnauthorizedError extends ApiError {
  override name = "UnauthorizedError";
}
export class ForbiddenError extends ApiError {
  override name = "ForbiddenError";
}
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
export class ConflictError extends ApiError {
  override name = "ConflictError";
}

/** 422: the request failed validation; `detail` lists every problem with its location. */
export class ValidationError extends ApiError {
  override name = "ValidationError";
  readonly detail: ValidationIssue[];
  constructor(status: number, body: unknown, headers: Headers, request: RequestInfo) {
    super(status, body, headers, request);
    this.detail = validationIssues(body);
  }
}

/** 429: too many requests; `retryAfter` is the server's wait in seconds, when it said. */
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
  readonly retryAfter: number | null;
  constructor(status: number, body: unknown, headers: Headers, request: RequestInfo) {
    super(status, body, headers, request);
    const ms = parseRetryAfter(headers.get("retry-after"), Date.now());
    this.retryAfter = ms === null ? null : ms / 1000;
  }
}

/** 502/504 from the integration proxy: the upstream ATS API failed, refused or timed out. */
export class UpstreamUnavailableError extends ApiError {
  override name = "UpstreamUnavailableError";
  /** True for 504: the upstream did not answer in time. */
  readonly timedOut: boolean;
  constructor(status: number, body: unknown, headers: Headers, request: RequestInfo) {
    super(status, body, headers, request);
    this.timedOut = status === 504;
  }
}

/** Any other 5xx. */
export class ServerError extends ApiError {
  override name = "ServerError";
}

const STATUS_CLASSES: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
  429: RateLimitError,
  502: UpstreamUnavailableError,
  504: UpstreamUnavailableError,
};

/** The request never produced a response: DNS, refused or reset connection, TLS failure. */
export class ConnectionError extends HirebridgeError {
  override name = "ConnectionError";
  constructor(request: RequestInfo, options: { cause?: unknown } = {}) {
    super(`${request.method} ${safePath(request.url)} could not reach ${safeOrigin(request.url)}`, options);
  }
}

/** No response within the configured timeout. */
export class TimeoutError extends HirebridgeError {
  override name = "TimeoutError";
  constructor(
    request: RequestInfo,
    readonly timeoutMs: number,
  ) {
    super(`${request.method} ${safePath(request.url)} timed out after ${timeoutMs} ms`);
  }
}

/** The caller's AbortSignal fired; `cause` is the signal's reason. */
export class AbortedError extends HirebridgeError {
  override name = "AbortedError";
}

export type AuthenticationFailure =
  /** The token endpoint refused the username or password. */
  | "invalid_credentials"
  /** The session (refresh token) ended and no credentials were supplied to log in again. */
  | "session_expired"
  /** Neither credentials nor a session were supplied. */
  | "no_credentials"
  /** The client id is unknown or not allowed to use the password grant. */
  | "client_rejected"
  /** The token endpoint failed or answered something that is not a token response. */
  | "token_endpoint_error";

/** Logging in or refreshing failed. `oauthError` is the RFC 6749 `error` code when the server sent one. */
export class AuthenticationError extends HirebridgeError {
  override name = "AuthenticationError";
  constructor(
    readonly reason: AuthenticationFailure,
    message: string,
    readonly oauthError: string | null = null,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

function validationIssues(body: unknown): ValidationIssue[] {
  const detail = (body as { detail?: unknown } | null)?.detail;
  return Array.isArray(detail) ? (detail.filter((d) => d && typeof d === "object") as ValidationIssue[]) : [];
}

const MAX_DETAIL = 300;

/** The human part of an error body, whichever of the servers' shapes it has. */
function describeBody(body: unknown, status: number): string {
  let text: string | undefined;
  if (typeof body === "string") text = body.trim() || undefined;
  else if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    if (typeof b["detail"] === "string") text = b["detail"];
    else if (Array.isArray(b["detail"])) {
      const issues = validationIssues(body);
      const first = issues[0];
      text = first
        ? `${first.loc.join(".")}: ${first.msg}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`
        : "validation failed";
    } else if (b["error"] && typeof b["error"] === "object") {
      // The upstream's error envelope, passed through by the proxy: {status:"error", error:{code,title,message}}.
      const e = b["error"] as Record<string, unknown>;
      text = [e["code"], e["message"] ?? e["title"]].filter((v) => typeof v === "string").join(": ") || undefined;
    } else if (typeof b["error"] === "string") {
      text = typeof b["error_description"] === "string" ? `${b["error"]}: ${b["error_description"]}` : b["error"];
    } else if (typeof b["errorMessage"] === "string") text = b["errorMessage"]; // Keycloak admin API
  }
  text ??= `HTTP ${status}`;
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split("?")[0] ?? url;
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the server";
  }
}
