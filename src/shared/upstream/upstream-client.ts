import { setTimeout as sleep } from "node:timers/promises";
import { Pool, type Dispatcher } from "undici";
import { redactUrl } from "../http/logger.js";
import { upstreamDuration, upstreamErrors } from "../http/metrics.js";
import { filterResponseHeaders, upstreamRequestHeaders } from "./headers.js";
import {
  AnswerCutShort,
  HeadersDeadlineError,
  isJson,
  queryString,
  streamFactory,
  textBody,
  type Answer,
  type StreamState,
} from "./upstream-answer.js";
import type { Deliver, Log, UpstreamClient, UpstreamClientOptions, UpstreamRequest, UpstreamResponse } from "./upstream-types.js";
import { parseRetryAfter } from "../../contracts/retry-after.js";
import { isConnectionError, isRetryableStatus, neverReachedUpstream, retryDelay } from "./retry-policy.js";
import {
  isTimeout,
  upstreamAuthFailed,
  upstreamFailed,
  upstreamMalformed,
  upstreamTimedOut,
  upstreamUnreachable,
} from "./upstream-errors.js";

export { AnswerCutShort } from "./upstream-answer.js";
export type * from "./upstream-types.js";

/** Deadlines from this long on rely on undici's coarse headersTimeout (its error is small relative to them). */
const COARSE_TIMEOUT_FROM_MS = 2000;

/** Time an attempt needs at the least; a retry that would start later than this before the deadline is not made. */
const MIN_ATTEMPT_MS = 50;

/** What every call of one client reads: its options, its pool and what is fixed from them. */
type Client = {
  opts: UpstreamClientOptions;
  pool: Pool;
  basePath: string;
  authorization: string;
  /** Whether attempts get a precise timer for the headers deadline (short deadlines only). */
  precise: boolean;
};

/**
 * The one module that talks to the upstream and the only holder of its API key. One keep-alive
 * undici Pool; every call has a deadline (UPSTREAM_TIMEOUT_MS from the first attempt, covering
 * retries and waits), and every outcome is either an answer to pass on or a typed UpstreamCallError.
 *
 * This is the proxy's hot path, so a first attempt does the least it can: the request options are
 * built once per call, the deadline of a first attempt is the pool's default (only retries and
 * short deadlines pass their own), and nothing that undici keeps after the answer has started
 * holds on to the caller's request (what it keeps is promoted out of the young generation). The
 * steps are module-level functions over one `Client`, not closures of this factory.
 */
export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const client = openClient(opts);
  const send = async (req: UpstreamRequest, log: Log = opts.logger) => passOn(client, await run(client, req, log, undefined));
  return {
    send,
    async forward(req, deliver, log = opts.logger) {
      const res = await run(client, req, log, deliver);
      return res.delivered ? undefined : passOn(client, res);
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
    close: () => client.pool.close(),
  };
}

function openClient(opts: UpstreamClientOptions): Client {
  const base = new URL(opts.baseUrl);
  // undici's headersTimeout runs on coarse timers (up to ~0.5 s late): fine for deadlines of
  // seconds, and free. Short deadlines get a precise timer that aborts the wait for the answer
  // (an AbortController per attempt costs a few microseconds, so only where it matters); undici's
  // own timeout then only backs it up.
  const precise = opts.timeoutMs < COARSE_TIMEOUT_FROM_MS;
  const pool = new Pool(base.origin, {
    connections: opts.connections ?? 256,
    keepAliveTimeout: 30_000,
    connectTimeout: Math.min(opts.timeoutMs, 10_000),
    headersTimeout: precise ? opts.timeoutMs + 1000 : opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  return { opts, pool, basePath: base.pathname.replace(/\/+$/, ""), authorization: `Bearer ${opts.apiKey}`, precise };
}

/** The undici request of an operation, built once and reused by its retries. */
function requestOptions(client: Client, req: UpstreamRequest): Dispatcher.RequestOptions {
  const body = req.body === undefined ? null : JSON.stringify(req.body);
  const headers = upstreamRequestHeaders({ requestId: req.requestId, integrationId: req.integrationId, hasBody: body !== null });
  headers["authorization"] = client.authorization;
  return {
    method: req.method,
    path: `${client.basePath}${req.path}${req.query ? queryString(req.query) : ""}`,
    headers,
    body,
    idempotent: req.read,
    // Present from the start (null: undici's defaults) so an attempt's deadline fills them in place.
    headersTimeout: null,
    signal: null,
  };
}

/**
 * Sets one attempt's deadline on its request: a precise timer (short deadlines) that aborts the
 * wait for the answer's headers, or for a retry what is left of the deadline as undici's own
 * timeout. Returns the timer to clear once the attempt has settled.
 */
function armDeadline(client: Client, request: Dispatcher.RequestOptions, remainingMs: number, timing: { headersAt: number }) {
  if (client.precise) {
    const abort = new AbortController();
    request.signal = abort.signal;
    return setTimeout(() => {
      if (!timing.headersAt) abort.abort(new HeadersDeadlineError());
    }, remainingMs);
  }
  if (remainingMs < client.opts.timeoutMs) request.headersTimeout = remainingMs; // a retry: what is left of the deadline
  return undefined;
}

/**
 * A streamed attempt (`forward`): a 2xx body is written into the caller's writable as it arrives
 * and any other answer's body (small: an error envelope) is collected for the status mapping and
 * retries.
 */
async function streamed(client: Client, request: Dispatcher.RequestOptions, state: StreamState): Promise<Answer> {
  try {
    // The state travels in a closure, not in undici's `opaque`: undici drops the factory once
    // the answer starts but keeps `opaque` with its handler, and with the state (which reaches
    // the caller's whole request) there, about 5 KB of every request outlived young-generation
    // collections and was promoted: scavenges of ~10 ms, the proxy's p99 (bench/proxy.md).
    await client.pool.stream(request, (data) => streamFactory(data, state));
  } catch (err) {
    // Part of the answer may be with the caller already: nothing can be retried or re-sent.
    if (state.answer?.delivered) throw new AnswerCutShort(err);
    throw err;
  }
  const answer = state.answer;
  if (!answer) throw new Error("upstream answered without a final status");
  return answer.delivered ? answer : { ...answer, body: textBody(Buffer.concat(state.chunks).toString("utf8")) };
}

/**
 * One physical call. Without `deliver` the answer comes with its body as a Readable (`send`);
 * with it the answer is streamed (`streamed`). Measured: latency to the answer's headers by
 * operation and status, failures by kind.
 */
async function attempt(
  client: Client,
  operation: string,
  request: Dispatcher.RequestOptions,
  remainingMs: number,
  deliver: Deliver | undefined,
): Promise<Answer> {
  const started = performance.now();
  const state: StreamState | undefined = deliver
    ? { deliver, apiKey: client.opts.apiKey, headersAt: 0, chunks: [], answer: undefined }
    : undefined;
  // When the answer's headers arrived (0 until then): a streamed attempt's state records it itself.
  const timing: { headersAt: number } = state ?? { headersAt: 0 };
  const timer = armDeadline(client, request, remainingMs, timing);
  try {
    let answer: Answer;
    if (state) answer = await streamed(client, request, state);
    else {
      const res = await client.pool.request(request);
      timing.headersAt = performance.now();
      answer = { status: res.statusCode, headers: res.headers, body: res.body, delivered: false };
    }
    const status = answer.status;
    upstreamDuration.series(operation, String(status)).observe((timing.headersAt - started) / 1000);
    if (status === 401 || status === 429 || status >= 500) upstreamErrors.inc({ operation, kind: String(status) });
    return answer;
  } catch (err) {
    const kind = isTimeout(err) ? "timeout" : "connection";
    upstreamDuration.series(operation, kind).observe((performance.now() - started) / 1000);
    upstreamErrors.inc({ operation, kind });
    throw err;
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Whether one more attempt fits: retries left, wait budget left, and time for it before the deadline. */
function canRetry(client: Client, attemptNo: number, waited: number, waitMs: number, deadline: number): boolean {
  const { retry } = client.opts;
  return attemptNo <= retry.retries && waited + waitMs <= retry.maxTotalWaitMs && Date.now() + waitMs + MIN_ATTEMPT_MS <= deadline;
}

/** What a failed attempt leads to: a wait before the next one, or the error to throw. */
function afterFailure(
  client: Client,
  req: UpstreamRequest,
  err: unknown,
  attemptNo: number,
  waited: number,
  deadline: number,
): { error: unknown } | { waitMs: number } {
  if (err instanceof AnswerCutShort) return { error: err };
  if (isTimeout(err)) return { error: upstreamTimedOut(client.opts.timeoutMs, err) };
  const retryable = neverReachedUpstream(err) || (req.read && isConnectionError(err));
  const waitMs = retryDelay(client.opts.retry, attemptNo);
  if (retryable && canRetry(client, attemptNo, waited, waitMs, deadline)) return { waitMs };
  return { error: upstreamUnreachable(err) };
}

/**
 * What a non-2xx answer leads to: a wait before the next attempt (a read's retryable status), the
 * answer to pass on (a JSON 4xx or 429), or the error to throw; bodies not passed on are dumped.
 */
async function afterAnswer(
  client: Client,
  req: UpstreamRequest,
  res: Answer,
  attemptNo: number,
  waited: number,
  deadline: number,
): Promise<{ waitMs: number } | { answer: Answer }> {
  const status = res.status;
  if (status === 401) {
    await res.body.dump();
    throw upstreamAuthFailed(status);
  }
  if (req.read && isRetryableStatus(status)) {
    const waitMs = retryDelay(client.opts.retry, attemptNo, parseRetryAfter(res.headers["retry-after"], Date.now()) ?? undefined);
    if (canRetry(client, attemptNo, waited, waitMs, deadline)) {
      await res.body.dump();
      return { waitMs };
    }
  }
  if (status === 429 || (status >= 400 && status < 500)) {
    if (isJson(res.headers["content-type"])) return { answer: await answerError(client, res) };
    await res.body.dump();
    throw upstreamMalformed(status, "without a JSON body");
  }
  await res.body.dump();
  if (status >= 500) throw upstreamFailed(status);
  throw upstreamMalformed(status, "with an unexpected status");
}

/**
 * The attempts of one operation until an answer to pass on: retries (reads on 429, 5xx and lost
 * connections; anything that never reached the upstream) within the deadline and wait budget,
 * and the mapping of what the caller must not see raw to an UpstreamCallError.
 */
async function run(client: Client, req: UpstreamRequest, log: Log, deliver: Deliver | undefined): Promise<Answer> {
  const { timeoutMs } = client.opts;
  const deadline = Date.now() + timeoutMs;
  const request = requestOptions(client, req);
  const operation = req.operation ?? "other";
  let waited = 0;
  for (let attemptNo = 1; ; attemptNo++) {
    let res: Answer;
    try {
      res = await attempt(client, operation, request, attemptNo === 1 ? timeoutMs : Math.max(1, deadline - Date.now()), deliver);
    } catch (err) {
      const next = afterFailure(client, req, err, attemptNo, waited, deadline);
      if ("error" in next) throw next.error;
      log.warn(
        { upstream: redactUrl(req.path), attempt: attemptNo, err: String(err), waitMs: next.waitMs },
        "upstream connection failed; retrying",
      );
      await sleep(next.waitMs);
      waited += next.waitMs;
      continue;
    }
    if (res.status >= 200 && res.status < 300) return res;
    const next = await afterAnswer(client, req, res, attemptNo, waited, deadline);
    if ("answer" in next) return next.answer;
    log.warn(
      { upstream: redactUrl(req.path), status: res.status, attempt: attemptNo, waitMs: next.waitMs },
      "upstream answered a retryable status; retrying",
    );
    await sleep(next.waitMs);
    waited += next.waitMs;
  }
}

/**
 * An error answer passed on (4xx, 429): small, so it is read and checked, and an upstream that
 * echoes the service's key in its error message does not hand it to the caller.
 */
async function answerError(client: Client, res: Answer): Promise<Answer> {
  let text: string;
  try {
    text = (await res.body.text()).replaceAll(client.opts.apiKey, "<redacted>");
  } catch (err) {
    throw isTimeout(err) ? upstreamTimedOut(client.opts.timeoutMs, err) : upstreamUnreachable(err);
  }
  return { ...res, headers: { ...res.headers, "content-length": String(Buffer.byteLength(text)) }, body: textBody(text) };
}

/** An answer as the caller gets it: its status, the headers that may cross, its body. */
function passOn(client: Client, res: Answer): UpstreamResponse {
  return { status: res.status, headers: filterResponseHeaders(res.headers, client.opts.apiKey), body: res.body };
}
