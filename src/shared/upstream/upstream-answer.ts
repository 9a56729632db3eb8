import type { IncomingHttpHeaders } from "node:http";
import { Readable, Writable } from "node:stream";
import type { Dispatcher } from "undici";
import { filterResponseHeaders } from "./headers.js";
import type { Deliver, UpstreamResponse } from "./upstream-types.js";

/** One attempt's answer: a 2xx already delivered (forward), or an answer whose body is still to be read. */
export type Answer = { status: number; headers: IncomingHttpHeaders; body: UpstreamResponse["body"]; delivered: boolean };

/** One streamed attempt's state. */
export type StreamState = { deliver: Deliver; apiKey: string; headersAt: number; chunks: Buffer[]; answer: Answer | undefined };

/** A streamed attempt's answer: a 2xx goes to the caller's writable, anything else into `chunks`. */
export function streamFactory({ statusCode, headers }: Dispatcher.StreamFactoryData, state: StreamState): Writable {
  state.headersAt = performance.now();
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

export class HeadersDeadlineError extends Error {
  override name = "TimeoutError";
}

/** `?a=1&b=2` (empty when there is nothing to send). */
export function queryString(query: Record<string, string>): string {
  let out = "";
  for (const key in query) out += `${out ? "&" : "?"}${encodeURIComponent(key)}=${encodeURIComponent(query[key]!)}`;
  return out;
}

/** A body already read, with the same reading methods as undici's. */
export function textBody(text: string): UpstreamResponse["body"] {
  return Object.assign(Readable.from([Buffer.from(text)]), {
    text: async () => text,
    dump: async () => {},
  });
}

export function isJson(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return value !== undefined && /^application\/([\w.+-]+\+)?json\b/i.test(value.trim());
}
