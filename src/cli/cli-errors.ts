import {
  AbortedError,
  ApiError,
  AuthenticationError,
  ConfigurationError,
  ConnectionError,
  ForbiddenError,
  HirebridgeError,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  UnauthorizedError,
  ValidationError,
} from "../client/core/errors.js"; // the error classes alone: not the whole SDK for every command line

/** Exit codes scripts can branch on (documented in docs/cli.md). */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  REJECTED: 5,
  UNAVAILABLE: 6,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI itself detects (bad input, no session, declined confirmation). */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.FAILURE,
  ) {
    super(message);
  }
}

const LOGIN_HINT = "run `hirebridge login` (or set HIREBRIDGE_USERNAME and HIREBRIDGE_PASSWORD)";

/**
 * One line and an exit code for any failure. The SDK's messages already leave out tokens and
 * credentials; nothing else (stack traces, bodies) is printed.
 */
export function describeFailure(err: unknown): { message: string; exitCode: ExitCode } {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof AuthenticationError) {
    const hint = err.reason === "session_expired" || err.reason === "no_credentials" ? `: ${LOGIN_HINT}` : "";
    return { message: `${err.message}${hint}`, exitCode: EXIT.AUTH };
  }
  if (err instanceof ValidationError) {
    const issues = err.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ");
    return { message: `Invalid request: ${issues || err.message}`, exitCode: EXIT.REJECTED };
  }
  if (err instanceof UnauthorizedError) return { message: `${err.message} (${LOGIN_HINT})`, exitCode: EXIT.AUTH };
  if (err instanceof ForbiddenError) return { message: err.message, exitCode: EXIT.AUTH };
  if (err instanceof NotFoundError) return { message: err.message, exitCode: EXIT.NOT_FOUND };
  if (err instanceof RateLimitError) {
    const wait = err.retryAfter === null ? "" : ` (retry after ${err.retryAfter} s)`;
    return { message: `${err.message}${wait}`, exitCode: EXIT.UNAVAILABLE };
  }
  if (err instanceof ApiError) {
    return { message: err.message, exitCode: err.status >= 500 ? EXIT.UNAVAILABLE : EXIT.REJECTED };
  }
  if (err instanceof ConnectionError)
    return {
      message: `${err.message}: is Hirebridge running there? Start it with \`npm start\` in the checkout, or point HIREBRIDGE_AUTH_URL, HIREBRIDGE_API_URL and HIREBRIDGE_PROXY_URL at a running one`,
      exitCode: EXIT.UNAVAILABLE,
    };
  if (err instanceof TimeoutError) return { message: err.message, exitCode: EXIT.UNAVAILABLE };
  if (err instanceof AbortedError) return { message: "Interrupted", exitCode: EXIT.INTERRUPTED };
  if (err instanceof ConfigurationError) return { message: err.message, exitCode: EXIT.USAGE };
  if (err instanceof HirebridgeError) return { message: err.message, exitCode: EXIT.FAILURE };
  // Unexpected: the message only (a stack trace is not an error message), still on one line.
  const message = err instanceof Error ? err.message : String(err);
  return { message: message.split("\n")[0] ?? "unexpected error", exitCode: EXIT.FAILURE };
}
