import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { UpstreamPage } from "../../contracts/upstream/index.js";
import { parseRetryAfter } from "../../contracts/retry-after.js";
import { isUpstreamCallError } from "../../shared/upstream/upstream-errors.js";
import type { UpstreamClient } from "../../shared/upstream/upstream-client.js";

/** A failure worth retrying later (429, 5xx, timeouts, connection errors); `retryAfterMs` when the upstream said. */
export class RetryableUpstreamError extends Error {
  override name = "RetryableUpstreamError";
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
/** A failure that retrying will not fix (the upstream refused the request: 4xx other than 429). */
export class PermanentUpstreamError extends Error {
  override name = "PermanentUpstreamError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
export const isRetryableUpstreamError = (e: unknown): e is RetryableUpstreamError => e instanceof RetryableUpstreamError;
export const isPermanentUpstreamError = (e: unknown): e is PermanentUpstreamError => e instanceof PermanentUpstreamError;

/** Typed list pages and actions of the upstream's unified ATS API; failures are the two errors above. */
export interface AtsReader {
  page<T>(integrationId: string, path: string, query: Record<string, string>, requestId?: string): Promise<UpstreamPage<T>>;
  action(integrationId: string, method: "PUT" | "POST", path: string, body: unknown, requestId?: string): Promise<void>;
}

/** The upstream's error message, without anything else of its body. */
function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: string | null; message?: string } };
    const code = parsed.error?.code ? `${parsed.error.code}: ` : "";
    return `${code}${parsed.error?.message ?? "no message"}`.slice(0, 300);
  } catch {
    return "no message";
  }
}

/** A failed call, told to `onFailure`: the call without ids, the upstream's status (null: no answer), the error. */
export type AtsCallFailure = { integrationId: string; operation: string; status: number | null; error: string; requestId: string };

/** An upstream path without the ids in it: `/ats/applications/{id}/notes`. */
const withoutIds = (path: string) => path.replace(/\/ats\/(applications|candidates|jobs)\/[^/]+/, "/ats/$1/{id}");

/**
 * What the sync engine and write-back need from the upstream, over the proxy's upstream client (so
 * the API key, timeouts and the client's own bounded retries apply): typed list pages and actions,
 * with every failure sorted into retryable or permanent.
 */
export function createAtsReader(upstream: UpstreamClient, logger: Logger, onFailure?: (failure: AtsCallFailure) => void): AtsReader {
  async function call(
    integrationId: string,
    method: "GET" | "PUT" | "POST",
    path: string,
    opts: { query?: Record<string, string>; body?: unknown; requestId?: string },
  ) {
    const requestId = opts.requestId ?? randomUUID();
    const operation = `${method} ${withoutIds(path)}`;
    const failed = <E extends Error>(status: number | null, err: E): E => {
      onFailure?.({ integrationId, operation, status, error: err.message, requestId });
      return err;
    };
    let res;
    try {
      res = await upstream.sendBuffered(
        {
          method,
          path,
          query: opts.query,
          integrationId,
          body: opts.body,
          requestId,
          read: method === "GET",
          // Sync and write-back calls, by upstream path without ids: sync GET /ats/jobs, write-back POST /ats/applications/{id}/notes.
          operation: `${method === "GET" ? "sync" : "write-back"} ${operation}`,
        },
        logger,
      );
    } catch (err) {
      if (isUpstreamCallError(err))
        throw failed(err.upstreamStatus ?? null, new RetryableUpstreamError(err.message, undefined, { cause: err }));
      throw err;
    }
    if (res.status === 200) return res.body;
    const message = `upstream answered ${res.status} (${upstreamMessage(res.body)})`;
    if (res.status === 429 || res.status >= 500) {
      throw failed(res.status, new RetryableUpstreamError(message, parseRetryAfter(res.headers["retry-after"], Date.now()) ?? undefined));
    }
    throw failed(res.status, new PermanentUpstreamError(message, res.status));
  }

  return {
    async page<T>(integrationId: string, path: string, query: Record<string, string>, requestId?: string): Promise<UpstreamPage<T>> {
      const body = await call(integrationId, "GET", path, { query, ...(requestId ? { requestId } : {}) });
      const parsed = JSON.parse(body) as { data?: UpstreamPage<T> };
      if (!parsed.data || !Array.isArray(parsed.data.results))
        throw new RetryableUpstreamError(`upstream list ${path} had no data.results`);
      return {
        results: parsed.data.results,
        next: typeof parsed.data.next === "string" && parsed.data.next.trim() ? parsed.data.next : null,
      };
    },
    async action(integrationId: string, method: "PUT" | "POST", path: string, body: unknown, requestId?: string): Promise<void> {
      await call(integrationId, method, path, { body, ...(requestId ? { requestId } : {}) });
    },
  };
}
