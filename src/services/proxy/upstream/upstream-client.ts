import { setTimeout as sleep } from "node:timers/promises";
import type { IncomingHttpHeaders } from "node:http";
import { Readable, Writable } from "node:stream";
import type { BaseLogger, Logger } from "pino";
/** Any pino-like logger: the service logger or a request logger. */
export type Log = Pick<BaseLogger, "info" | "warn" | "debug" | "error">;
import { Pool, type Dispatcher } from "undici";
import { redactUrl } from "../../../shared/http/logger.js";
import { boundSeries, upstreamDuration, upstreamErrors } from "../../../shared/http/metrics.js";
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

/**
 * Where a 2xx answer of `forward` goes: called once its status and (filtered) headers are known,
 * it returns the writable the body is written into, as it arrives.
 */
export type Deliver = (status: number, headers: Record<string, string>) => Writable;

export type UpstreamClient = {
  /** Sends one operation; resolves with an answer to pass on, or throws an UpstreamError (502/504). */
  send(req: UpstreamRequest, log?: Log): Promise<UpstreamResponse>;
  /**
   * As `send`, but a 2xx answer's body goes straight into the writable `deliver` returns (undici's
   * stream API: no intermediate Readable), and the call resolves with `undefined` once it is
   * written. Any other answer is returned or thrown as by `send`, and `deliver` is not called.
   */
  forward(req: UpstreamRequest, deliver: Deliver, log?: Log): Promise<UpstreamResponse | undefined>;
  /** As `send`, with the body read into a string (for small answers the proxy caches or inspects). */
  sendBuffered(req: UpstreamRequest, log?: Log): Promise<BufferedUpstreamResponse>;
  close(): Promise<void>;
};

/** One attempt's answer: a 2xx already delivered (forward), or an answer whose body is still to be read. */
type Answer = { status: number; headers: IncomingHttpHeaders; body: UpstreamResponse["body"]; delivered: boolean };

/** How one attempt is made: with a Readable body (`send`) or straight into the caller's writable (`forward`). */
type Perform = (request: Dispatcher.RequestOptions, timing: Timing) => Promise<Answer>;

/** When an attempt's answer headers arrived (performance.now()), 0 until then. */
type Timing = { headersAt: number };

/** One streamed attempt's state, passed to undici as `opaque`. */
type StreamState = { deliver: Deliver; apiKey: string; timing: Timing; chunks: Buffer[]; answer?: Answer };

/** Shared by every streamed attempt: a 2xx goes to the caller's writable, anything else into `chunks`. */
function streamFactory({ statusCode, headers, opaque: state }: Dispatcher.StreamFactoryData<StreamState>): Writable {
  state.timing.headersAt = performance.now();
  const delivered = statusCode >= 200 && statusCode < 300;
  state.answer = { status: statusCode, headers, delivered, body: NOT_READ };
  if (delivered) return state.deliver(statusCode, filterResponseHeaders(headers, state.apiKey));
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      state.chunks.push(chunk);
      done();
    },
  });
}

/** The body of an answer that was delivered: nothing is left to read. */
const NOT_READ: UpstreamResponse["body"] = Object.assign(Readable.from([]), { text: async () => "", dump: async () => {} });

/** Upstream latency by operation and status (or error kind). */
const upstreamSeries = boundSeries((operation, status) => upstreamDuration.labels({ operation: operation!, status: status! }));

/**
 * A 2xx answer broke off after it had started to reach the caller (`forward`): the upstream's
 * connection failed mid-body, or the caller's did. The caller's response is cut short (its
 * connection closed, so it cannot pass for complete); there is nothing to retry or map.
 */
export class AnswerCutShort extends Error {
  override name = "AnswerCutShort";
  constructor(cause: unknown) {
    super("the answer broke off while it was being passed on", { cause });
  }
}

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

  /** `send`'s attempts: the answer with its body as a Readable. */
  const readable: Perform = async (request, timing) => {
    const res = await pool.request(request);
    timing.headersAt = performance.now();
    return { status: res.statusCode, headers: res.headers, body: res.body, delivered: false };
  };

  /**
   * `forward`'s attempts: a 2xx body is written into the caller's writable as it arrives; any other
   * answer's body (small: an error envelope) is collected for the status mapping and retries.
   * State travels in undici's `opaque` rather than in closures made per request.
   */
  const streamed =
    (deliver: Deliver): Perform =>
    async (request, timing) => {
      const state: StreamState = { deliver, apiKey: opts.apiKey, timing, chunks: [] };
      try {
        await pool.stream({ ...request, opaque: state }, streamFactory);
      } catch (err) {
        // Part of the answer may be with the caller already: nothing can be retried or re-sent.
        if (state.answer?.delivered) throw new AnswerCutShort(err);
        throw err;
      }
      const { answer, chunks } = state;
      if (!answer) throw new Error("upstream answered without a final status");
      return answer.delivered ? answer : { ...answer, body: textBody(Buffer.concat(chunks).toString("utf8")) };
    };

  /** One physical call, measured: latency to the answer's headers by operation and status, and failures by kind. */
  async function attempt(req: UpstreamRequest, body: string | undefined, timeoutMs: number, perform: Perform): Promise<Answer> {
    const operation = req.operation ?? "other";
    const started = performance.now();
    const timing: Timing = { headersAt: 0 };
    try {
      const res = await call(req, body, timeoutMs, perform, timing);
      const status = res.status;
      upstreamSeries(operation, String(status)).observe(((timing.headersAt || performance.now()) - started) / 1000);
      if (status === 401 || status === 429 || status >= 500) upstreamErrors.inc({ operation, kind: String(status) });
      return res;
    } catch (err) {
      const kind = isTimeout(err) ? "timeout" : "connection";
      upstreamSeries(operation, kind).observe((performance.now() - started) / 1000);
      upstreamErrors.inc({ operation, kind });
      throw err;
    }
  }

  async function call(
    req: UpstreamRequest,
    body: string | undefined,
    timeoutMs: number,
    perform: Perform,
    timing: Timing,
  ): Promise<Answer> {
    const headers = upstreamRequestHeaders({ requestId: req.requestId, integrationId: req.integrationId, hasBody: body !== undefined });
    headers.authorization = authorization;
    const query = req.query ? queryString(req.query) : "";
    const request: Dispatcher.RequestOptions = {
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
    if (timeoutMs >= COARSE_TIMEOUT_FROM_MS) return perform({ ...request, headersTimeout: timeoutMs }, timing);
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      if (!timing.headersAt) deadline.abort(new HeadersDeadlineError());
    }, timeoutMs);
    try {
      return await perform({ ...request, signal: deadline.signal, headersTimeout: timeoutMs + 1000 }, timing);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The attempts of one operation until an answer to pass on: retries (reads on 429, 5xx and lost
   * connections; anything that never reached the upstream) within the deadline and wait budget,
   * and the mapping of what the caller must not see raw to an UpstreamError.
   */
  async function run(req: UpstreamRequest, log: Log, perform: Perform): Promise<Answer> {
    const started = Date.now();
    const deadline = started + opts.timeoutMs;
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    let waited = 0;
    for (let attemptNo = 1; ; attemptNo++) {
      const canRetry = (waitMs: number) =>
        attemptNo <= opts.retry.retries &&
        waited + waitMs <= opts.retry.maxTotalWaitMs &&
        Date.now() + waitMs + MIN_ATTEMPT_MS <= deadline;

      let res: Answer;
      try {
        res = await attempt(req, body, Math.max(1, deadline - Date.now()), perform);
      } catch (err) {
        if (err instanceof AnswerCutShort) throw err;
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

      const status = res.status;
      if (status >= 200 && status < 300) return res;
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
        if (isJson(res.headers["content-type"])) return answerError(res);
        await res.body.dump();
        throw upstreamMalformed(status, "without a JSON body");
      }
      await res.body.dump();
      if (status >= 500) throw upstreamFailed(status);
      throw upstreamMalformed(status, "with an unexpected status");
    }
  }

  /**
   * An error answer passed on (4xx, 429): small, so it is read and checked, and an upstream that
   * echoes the service's key in its error message does not hand it to the caller.
   */
  async function answerError(res: Answer): Promise<Answer> {
    let text: string;
    try {
      text = (await res.body.text()).replaceAll(opts.apiKey, "<redacted>");
    } catch (err) {
      throw isTimeout(err) ? upstreamTimedOut(opts.timeoutMs, err) : upstreamUnreachable(err);
    }
    return { ...res, headers: { ...res.headers, "content-length": String(Buffer.byteLength(text)) }, body: textBody(text) };
  }

  /** An answer as the caller gets it: its status, the headers that may cross, its body. */
  function passOn(res: Answer): UpstreamResponse {
    return { status: res.status, headers: filterResponseHeaders(res.headers, opts.apiKey), body: res.body };
  }

  const send = async (req: UpstreamRequest, log: Log = opts.logger) => passOn(await run(req, log, readable));

  return {
    send,
    async forward(req, deliver, log = opts.logger) {
      const res = await run(req, log, streamed(deliver));
      return res.delivered ? undefined : passOn(res);
    },
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

/** `?a=1&b=2` (empty when there is nothing to send). */
function queryString(query: Record<string, string>): string {
  let out = "";
  for (const key in query) out += `${out ? "&" : "?"}${encodeURIComponent(key)}=${encodeURIComponent(query[key]!)}`;
  return out;
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
