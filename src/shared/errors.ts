/**
 * One error model for the resource servers. Every known failure is an AppError with a stable code;
 * the code → status table is checked by the compiler (`satisfies`), so a new code does not build
 * until it has a status. The error handler turns these into `{ detail }` JSON bodies.
 */
export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  VALIDATION: 422,
  RATE_LIMITED: 429,
  UPSTREAM_AUTH: 502,
  UPSTREAM_UNAVAILABLE: 502,
  UPSTREAM_TIMEOUT: 504,
  UNAVAILABLE: 503,
  INTERNAL: 500,
} as const satisfies Record<string, number>;
export type ErrorCode = keyof typeof ERROR_STATUS;

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

export class AppError extends Error {
  override name = "AppError";
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string>; detail?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.statusCode = ERROR_STATUS[code];
    this.headers = options.headers ?? {};
    this.detail = options.detail ?? message;
  }
  /** What the client sees as `detail`: the message, or a structured list for validation errors. */
  readonly detail: unknown;
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

export const notFound = (what = "Not found") => new AppError("NOT_FOUND", what);
export const forbidden = (what = "Forbidden") => new AppError("FORBIDDEN", what);
export const conflict = (what: string) => new AppError("CONFLICT", what);
export const unauthorized = (what = "Not authenticated") =>
  new AppError("UNAUTHORIZED", what, { headers: { "www-authenticate": 'Bearer error="invalid_token"' } });
/** A 422 with the HTTPValidationError shape, for checks a JSON schema cannot express. */
export const validationError = (issues: ValidationIssue[]) =>
  new AppError("VALIDATION", issues[0]?.msg ?? "Validation error", { detail: issues });
