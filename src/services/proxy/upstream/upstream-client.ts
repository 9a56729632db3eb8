import { setTimeout as sleep } from "node:timers/promises";
import { Readable } from "node:stream";
import type { BaseLogger, Logger } from "pino";
/** Any pino-like logger: the service logger or a request logger. */
export type Log = Pick<BaseLogger, "info" | "warn" | "debug" | "error">;
import { Pool, type Dispatcher } from "undici";
import { redactUrl } from "../../../shared/http/logger.js";
import { upstreamDuration, upstreamErrors } from "../../../shared/http/metrics.js";
import { filterResponseHeaders, upstreamRequestHeaders } from "./headers.js";
import {
  isConnectionError,
  isRetryableStatus,
  neverReachedUpstream,
  parseRetryAfter,
  retryDelay,
  type RetryPolicy,
} from "./retry-policy.js";
import {
  isTimeout,
  upstreamAuthFailed,
  upstreamFailed,
  upstreamMalformed,
  upstreamTimedOut,
  upstreamUnreachable,
} from "./upstream-errors.js";

export type UpstreamMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type UpstreamRequest = {
  method: UpstreamMethod;
  /** Below the base URL (which may carry a path such as `/v1`), already percent-encoded. */
  path: string;
  query?: Record<string, string> | undefined;
  /** Sent as `X-Integration-Id` (the upstream requires it on ATS operations and force-sync). */
  integrationId?: string | undefined;
  /** A JSON value, serialised once (so a retry sends the same bytes). */
  body?: unknown;
  requestId: string;
  /** Reads are retried on 429, 5xx and connection failures; writes only when nothing was sent. */
  read: boolean;
  /** The operation's name, for metrics (e.g. `listJobs`); the path would have ids in it. */
  operation?: string | undefined;
};

/** An upstream answer the caller may see: 2xx, a JSON 4xx other than 401, or a 429 after retries. */
export type UpstreamResponse = {
  status: number;
  headers: Record<string, string>;
  body: Readable & { text(): Promise<string>; dump(): Promise<void> };
  attempts: number;
};
export type BufferedUpstreamResponse = Omit<UpstreamResponse, "body"> & { body: string };

export type UpstreamClientOptions = {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Keep-alive connections to the upstream. */
  connections?: number;
  logger: Logger;
};

export type UpstreamClient = {
  /** Sends one operation; resolves with an answer to pass on, or throws an UpstreamError (502/504). */
  send(req: UpstreamRequest, log?: Log): Promise<UpstreamResponse>;
  /** As `send`, with the body read into a string (for small answers the proxy caches or inspects). */
  sendBuffered(req: UpstreamRequest, log?: Log): Promise<BufferedUpstreamResponse>;
  close(): Promise<void>;
};

class HeadersDeadlineError extends Error {
  override name = "TimeoutError";
}

/** Deadlines from this long on rely on undici's coarse headersTimeout (its error is small relative to them). */
const COARSE_TIMEOUT_FROM_MS = 2000;

/** Time an attempt needs at the least; a retry that would start later than this before the deadline is not made. */
const MIN_ATTEMPT_MS = 50;

/**
 * The one module that talks to the upstream and the only holder of its API key. One keep-alive
 * undici Pool; every call has a deadline (UPSTREAM_TIMEOUT_MS from the first attempt, covering
 * retries and waits), and every outcome is either an answer to pass on or a typed UpstreamError.
 */
export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const base = new URL(opts.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  const pool = new Pool(base.origin, {
    connections: opts.connections ?? 256,
    keepAliveTimeout: 30_000,
    connectTimeout: Math.min(opts.timeoutMs, 10_000),
  });
  const authorization = `Bearer ${opts.apiKey}`;

  /** One physical call, measured: latency by operation and status, and failures by kind. */
  async function attempt(req: UpstreamRequest, body: string | undefined, timeoutMs: number): Promise<Dispatcher.ResponseData> {
    const operation = req.operation ?? "other";
    const started = performance.now();
    try {
      const res = await call(req, body, timeoutMs);
      const status = res.statusCode;
      upstreamDuration.observe({ operation, status: String(status) }, (performance.now() - started) / 1000);
      if (status === 401 || status === 429 || status >= 500) upstreamErrors.inc({ operation, kind: String(status) });
      return res;
    } catch (err) {
      const kind = isTimeout(err) ? "timeout" : "connection";
      upstreamDuration.observe({ operation, status: kind }, (performance.now() - started) / 1000);
      upstreamErrors.inc({ operation, kind });
      throw err;
    }
  }

  async function call(req: UpstreamRequest, body: string | undefined, timeoutMs: number): Promise<Dispatcher.ResponseData> {
    const headers = upstreamRequestHeaders({ requestId: req.requestId, integrationId: req.integrationId, hasBody: body !== undefined });
    headers.authorization = authorization;
    const query = req.query && Object.keys(req.query).length > 0 ? `?${new URLSearchParams(req.query).toString()}` : "";
    const request = {
      method: req.method,
      path: `${basePath}${req.path}${query}`,
      headers,
      body: body ?? null,
      bodyTimeout: opts.timeoutMs,
      idempotent: req.read,
    };
    // undici's headersTimeout runs on coarse timers (up to ~0.5 s late): fine for deadlines of
    // seconds, and free. Short deadlines get a precise timer that aborts the wait for the answer
    // (an AbortController per request costs a few microseconds, so only where it matters).
    if (timeoutMs >= COARSE_TIMEOUT_FROM_MS) return pool.request({ ...request, headersTimeout: timeoutMs });
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new HeadersDeadlineError()), timeoutMs);
    try {
      return await pool.request({ ...request, signal: deadline.signal, headersTimeout: timeoutMs + 1000 });
    } finally {
      clearTimeout(timer);
    }
  }

  async function send(req: UpstreamRequest, log: Log = opts.logger): Promise<UpstreamResponse> {
    const started = Date.now();
    const deadline = started + opts.timeoutMs;
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    let waited = 0;
    for (let attemptNo = 1; ; attemptNo++) {
      const canRetry = (waitMs: number) =>
        attemptNo <= opts.retry.retries &&
        waited + waitMs <= opts.retry.maxTotalWaitMs &&
        Date.now() + waitMs + MIN_ATTEMPT_MS <= deadline;

      let res: Dispatcher.ResponseData;
      try {
        res = await attempt(req, body, Math.max(1, deadline - Date.now()));
      } catch (err) {
        if (isTimeout(err)) throw upstreamTimedOut(opts.timeoutMs, err);
        const retryable = neverReachedUpstream(err) || (req.read && isConnectionError(err));
        const waitMs = retryDelay(opts.retry, attemptNo);
        if (retryable && canRetry(waitMs)) {
          log.warn({ upstream: redactUrl(req.path), attempt: attemptNo, err: String(err), waitMs }, "upstream connection failed; retrying");
          await sleep(waitMs);
          waited += waitMs;
          continue;
        }
        throw upstreamUnreachable(err);
      }

      const status = res.statusCode;
      if (status >= 200 && status < 300) return answer(res, attemptNo);
      if (status === 401) {
        await res.body.dump();
        throw upstreamAuthFailed(status);
      }
      if (req.read && isRetryableStatus(status)) {
        const waitMs = retryDelay(opts.retry, attemptNo, parseRetryAfter(res.headers["retry-after"]));
        if (canRetry(waitMs)) {
          await res.body.dump();
          log.warn({ upstream: redactUrl(req.path), status, attempt: attemptNo, waitMs }, "upstream answered a retryable status; retrying");
          await sleep(waitMs);
          waited += waitMs;
          continue;
        }
      }
      if (status === 429 || (status >= 400 && status < 500)) {
        if (isJson(res.headers["content-type"])) return answerError(res, attemptNo);
        await res.body.dump();
        throw upstreamMalformed(status, "without a JSON body");
      }
      await res.body.dump();
      if (status >= 500) throw upstreamFailed(status);
      throw upstreamMalformed(status, "with an unexpected status");
    }
  }

  function answer(res: Dispatcher.ResponseData, attempts: number): UpstreamResponse {
    return { status: res.statusCode, headers: filterResponseHeaders(res.headers, opts.apiKey), body: res.body, attempts };
  }

  /**
   * An error answer passed on (4xx, 429): small, so it is read and checked, and an upstream that
   * echoes the service's key in its error message does not hand it to the caller.
   */
  async function answerError(res: Dispatcher.ResponseData, attempts: number): Promise<UpstreamResponse> {
    let text: string;
    try {
      text = (await res.body.text()).replaceAll(opts.apiKey, "<redacted>");
    } catch (err) {
      throw isTimeout(err) ? upstreamTimedOut(opts.timeoutMs, err) : upstreamUnreachable(err);
    }
    const headers = filterResponseHeaders(res.headers, opts.apiKey);
    headers["content-length"] = String(Buffer.byteLength(text));
    return { status: res.statusCode, headers, body: textBody(text), attempts };
  }

  return {
    send,
    async sendBuffered(req, log) {
      const res = await send(req, log);
      try {
        return { ...res, body: await res.body.text() };
      } catch (err) {
        if (isTimeout(err)) throw upstreamTimedOut(opts.timeoutMs, err);
        throw upstreamUnreachable(err);
      }
    },
    close: () => pool.close(),
  };
}

/** A body already read, with the same reading methods as undici's. */
function textBody(text: string): UpstreamResponse["body"] {
  return Object.assign(Readable.from([Buffer.from(text)]), {
    text: async () => text,
    dump: async () => {},
  });
}

function isJson(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return value !== undefined && /^application\/([\w.+-]+\+)?json\b/i.test(value.trim());
}
