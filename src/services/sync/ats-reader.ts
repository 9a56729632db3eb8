import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { UpstreamPage } from "../../contracts/upstream/index.js";
import { parseRetryAfter } from "../../shared/upstream/retry-policy.js";
import { isUpstreamCallError } from "../../shared/upstream/upstream-errors.js";
import type { UpstreamClient } from "../../shared/upstream/upstream-client.js";
import { PermanentUpstreamError, RetryableUpstreamError, type AtsReader } from "./ports.js";

export { isPermanentUpstreamError, isRetryableUpstreamError, PermanentUpstreamError, RetryableUpstreamError } from "./ports.js";

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

/**
 * What the sync engine and write-back need from the upstream, over the proxy's upstream client (so
 * the API key, timeouts and the client's own bounded retries apply): typed list pages and actions,
 * with every failure sorted into retryable or permanent.
 */
export function createAtsReader(upstream: UpstreamClient, logger: Logger): AtsReader {
  async function call(
    integrationId: string,
    method: "GET" | "PUT" | "POST",
    path: string,
    opts: { query?: Record<string, string>; body?: unknown; requestId?: string },
  ) {
    let res;
    try {
      res = await upstream.sendBuffered(
        {
          method,
          path,
          query: opts.query,
          integrationId,
          body: opts.body,
          requestId: opts.requestId ?? randomUUID(),
          read: method === "GET",
          // Sync and write-back calls, by upstream path without ids: sync GET /ats/jobs, write-back POST /ats/applications/{id}/notes.
          operation: `${method === "GET" ? "sync" : "write-back"} ${method} ${path.replace(/\/ats\/(applications|candidates|jobs)\/[^/]+/, "/ats/$1/{id}")}`,
        },
        logger,
      );
    } catch (err) {
      if (isUpstreamCallError(err)) throw new RetryableUpstreamError(err.message, undefined, { cause: err });
      throw err;
    }
    if (res.status === 200) return res.body;
    if (res.status === 429 || res.status >= 500) {
      throw new RetryableUpstreamError(
        `upstream answered ${res.status} (${upstreamMessage(res.body)})`,
        parseRetryAfter(res.headers["retry-after"]),
      );
    }
    throw new PermanentUpstreamError(`upstream answered ${res.status} (${upstreamMessage(res.body)})`, res.status);
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
export type { AtsReader } from "./ports.js";
