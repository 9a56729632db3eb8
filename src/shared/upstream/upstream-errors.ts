import { AppError, type ErrorCode } from "../errors.js";
import { errorCode } from "./retry-policy.js";

type UpstreamCallErrorCode = Extract<ErrorCode, "UPSTREAM_AUTH" | "UPSTREAM_UNAVAILABLE" | "UPSTREAM_TIMEOUT">;

/**
 * An upstream failure the caller must not see raw: the proxy answers 502/504 with a JSON `detail`
 * that names what went wrong, never the upstream's body, headers or the service's key.
 */
export class UpstreamCallError extends AppError {
  override name = "UpstreamCallError";
  constructor(
    code: UpstreamCallErrorCode,
    message: string,
    readonly upstreamStatus: number | undefined,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}

export const isUpstreamCallError = (e: unknown): e is UpstreamCallError => e instanceof UpstreamCallError;

export function upstreamAuthFailed(status: number): UpstreamCallError {
  return new UpstreamCallError(
    "UPSTREAM_AUTH",
    "The upstream rejected the proxy's API key; the service's UPSTREAM_API_KEY must be fixed by its operator",
    status,
  );
}

export function upstreamFailed(status: number): UpstreamCallError {
  return new UpstreamCallError("UPSTREAM_UNAVAILABLE", `The upstream failed with HTTP ${status}`, status);
}

export function upstreamMalformed(status: number, what: string): UpstreamCallError {
  return new UpstreamCallError("UPSTREAM_UNAVAILABLE", `The upstream answered HTTP ${status} ${what}`, status);
}

export function upstreamTimedOut(timeoutMs: number, cause?: unknown): UpstreamCallError {
  return new UpstreamCallError("UPSTREAM_TIMEOUT", `The upstream did not answer within ${timeoutMs} ms`, undefined, { cause });
}

/** A transport failure (no HTTP answer at all), named by what happened to the connection. */
export function upstreamUnreachable(err: unknown): UpstreamCallError {
  const code = errorCode(err);
  const what =
    code === "ECONNREFUSED"
      ? "the connection was refused"
      : code === "ENOTFOUND" || code === "EAI_AGAIN"
        ? "its host name does not resolve"
        : code === "UND_ERR_CONNECT_TIMEOUT"
          ? "the connection could not be opened in time"
          : "the connection was closed before it answered";
  return new UpstreamCallError("UPSTREAM_UNAVAILABLE", `The upstream is unreachable: ${what}`, undefined, { cause: err });
}

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
export function isTimeout(err: unknown): boolean {
  const code = errorCode(err);
  return (code !== undefined && TIMEOUT_CODES.has(code)) || (err instanceof Error && err.name === "TimeoutError");
}
