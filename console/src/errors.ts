import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  UnauthorizedError,
  UpstreamUnavailableError,
  ValidationError,
  ApiError,
} from "hirebridge/client";

/** One problem with a field, in words, keyed by the field's name when the API named one. */
export type FieldProblem = { field: string | null; message: string };

/** Every error the APIs answer, said in words a person understands (what happened, what to do). */
export function describeError(err: unknown): { message: string; fields: FieldProblem[] } {
  if (err instanceof ValidationError) {
    const fields = err.detail.map((d) => ({
      field: typeof d.loc.at(-1) === "string" && d.loc.length > 1 ? String(d.loc.at(-1)) : null,
      message: d.msg,
    }));
    return {
      message: `Some values were not accepted: ${fields.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)).join("; ")}.`,
      fields,
    };
  }
  if (err instanceof RateLimitError) {
    const wait = err.retryAfter === null ? "a moment" : `${Math.ceil(err.retryAfter)} second${Math.ceil(err.retryAfter) === 1 ? "" : "s"}`;
    return { message: `Too many requests right now. Please wait ${wait} and try again.`, fields: [] };
  }
  if (err instanceof UpstreamUnavailableError) {
    return {
      message: err.timedOut
        ? "The connected ATS did not answer in time (504). Nothing was changed here; try again in a moment."
        : `The connected ATS refused or failed the request (${err.status}): ${detailOf(err)}. Try again later, or check the integration's connection.`,
      fields: [],
    };
  }
  if (err instanceof UnauthorizedError || err instanceof AuthenticationError) {
    return { message: "Your session has ended. Sign in again to continue; what you typed is still here.", fields: [] };
  }
  if (err instanceof ForbiddenError) return { message: `You are not allowed to do this (403): ${detailOf(err)}.`, fields: [] };
  if (err instanceof NotFoundError)
    return { message: "It was not found (404): it may have been deleted, or belong to another organisation.", fields: [] };
  if (err instanceof ConflictError)
    return { message: `This conflicts with the current data (409): ${detailOf(err)}. Reload and try again.`, fields: [] };
  if (err instanceof TimeoutError)
    return { message: "The request took too long and was stopped. Check your connection and try again.", fields: [] };
  if (err instanceof ConnectionError)
    return { message: "Hirebridge could not be reached. Check that it is running and try again.", fields: [] };
  if (err instanceof ApiError) return { message: `The request failed (${err.status}): ${detailOf(err)}.`, fields: [] };
  return { message: err instanceof Error ? err.message : String(err), fields: [] };
}

const detailOf = (err: ApiError) => err.serverDetail;
