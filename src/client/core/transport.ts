import { AbortedError, ConnectionError, TimeoutError } from "./errors.js";

/** The `fetch` the SDK calls; inject your own (proxies, instrumentation, tests). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A finished HTTP exchange: status, headers and the body already read and parsed. */
export type RawResponse = { status: number; headers: Headers; body: unknown };

export type OutgoingRequest = {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
};

// Bound lazily so a polyfilled or later-installed global fetch is picked up, and so browsers do not
// throw "Illegal invocation" for an unbound `fetch`.
export const globalFetch: FetchLike = (input, init) => globalThis.fetch(input, init);

/**
 * One request and its whole body under one deadline. The timeout covers reading the body too (a
 * server that sends headers and then stalls is a timeout, not a hang). Failures become the SDK's
 * typed errors: the caller's abort → AbortedError, our deadline → TimeoutError, anything that kept
 * a response from arriving → ConnectionError.
 */
export async function exchange(
  fetchImpl: FetchLike,
  request: OutgoingRequest,
  opts: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<RawResponse> {
  const info = { method: request.method, url: request.url };
  if (opts.signal?.aborted) throw new AbortedError("The request was aborted", { cause: opts.signal.reason });
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs);
  const onAbort = () => controller.abort(opts.signal?.reason);
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const init: RequestInit = { method: request.method, headers: request.headers, signal: controller.signal };
    if (request.body !== undefined) init.body = request.body;
    const response = await fetchImpl(request.url, init);
    const text = await untilAborted(response.text(), controller.signal);
    return { status: response.status, headers: response.headers, body: parseBody(text, response.headers) };
  } catch (err) {
    if (timedOut) throw new TimeoutError(info, opts.timeoutMs);
    if (opts.signal?.aborted) throw new AbortedError("The request was aborted", { cause: opts.signal.reason });
    throw new ConnectionError(info, { cause: err });
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Waits for `work` unless `signal` aborts first. A fetch honours its signal while reading the body,
 * but an injected fetch (a mock, a wrapper) may not; the deadline must hold either way.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function parseBody(text: string, headers: Headers): unknown {
  if (text === "") return null;
  const type = headers.get("content-type") ?? "";
  if (!/[/+]json\b/i.test(type)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
