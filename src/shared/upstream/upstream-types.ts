import type { Readable, Writable } from "node:stream";
import type { BaseLogger, Logger } from "pino";
import type { RetryPolicy } from "./retry-policy.js";

/** Any pino-like logger: the service logger or a request logger. */
export type Log = Pick<BaseLogger, "info" | "warn" | "debug" | "error">;

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
  /** Sends one operation; resolves with an answer to pass on, or throws an UpstreamCallError (502/504). */
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
