import { isIP, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { Agent, buildConnector, request } from "undici";
import { retryAfterMs } from "./schedule.js";
import { guardedLookup, RefusedAddressError, refusedAddress, type Resolve, type TargetPolicy } from "./targets.js";

/** What one attempt came to. */
export type AttemptOutcome = {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first kilobyte of the answer's body. */
  response: string | null;
  /** The receiver's Retry-After, ms. */
  retryAfterMs: number | null;
};

/** The answer's body kept per attempt: enough to see an error message, never a whole page. */
const RESPONSE_EXCERPT_BYTES = 1024;
const USER_AGENT = "Hirebridge-Webhooks/1.0 (+https://www.standardwebhooks.com)";
/** The headers every attempt carries besides its webhook-* ones (recorded with each attempt). */
export const BASE_HEADERS = { "content-type": "application/json", "user-agent": USER_AGENT } as const;

/**
 * The connector of the delivery agent: every connection resolves its host through the policy's
 * lookup (so a name that re-resolves to a refused address is never connected to: DNS rebinding),
 * an IP-literal host is checked before connecting, and the address the socket actually reached is
 * checked again before a byte is sent.
 */
function guardedConnector(policy: TargetPolicy, resolve: Resolve | undefined, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, lookup: guardedLookup(policy, resolve) } as buildConnector.BuildOptions);
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, "");
    const literal = isIP(host) ? refusedAddress(host, policy) : null;
    if (literal) {
      callback(new RefusedAddressError(`refused: ${literal}`), null);
      return;
    }
    connect(opts, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error("no socket"), null);
      const reached = (socket as Socket).remoteAddress;
      const why = reached ? refusedAddress(reached, policy) : "no remote address";
      if (why) {
        socket.destroy();
        return callback(new RefusedAddressError(`refused: ${why}`), null);
      }
      callback(null, socket);
    });
  };
}

async function excerpt(body: AsyncIterable<Buffer>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_EXCERPT_BYTES) break; // leaving the loop destroys the body (and its connection)
  }
  if (size === 0) return null;
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8");
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === "TimeoutError" || e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT") {
    return `timeout: no answer within ${timeoutMs} ms`;
  }
  if (e.code === "UND_ERR_CONNECT_TIMEOUT") return `timeout: no connection within ${timeoutMs} ms`;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return [e.code, e.message, cause?.message].filter(Boolean).join(": ").slice(0, 300) || "request failed";
}

/**
 * POSTs deliveries (undici, keep-alive connections per origin). Redirects are not followed (a 3xx
 * is a failed attempt, as Standard Webhooks advises: the URL should be updated instead), and each
 * attempt has `timeoutMs` in all to connect, send and answer.
 */
export function createSender(opts: { policy: TargetPolicy; timeoutMs: number; resolve?: Resolve | undefined }) {
  const agent = new Agent({
    connect: guardedConnector(opts.policy, opts.resolve, opts.timeoutMs),
    keepAliveTimeout: 30_000,
    connections: 32,
  });

  async function send(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await request(url, {
        method: "POST",
        dispatcher: agent,
        headers: { ...BASE_HEADERS, ...headers },
        body,
        signal: AbortSignal.timeout(opts.timeoutMs),
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
      const response = await excerpt(res.body).catch(() => null);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return {
        ok,
        statusCode: res.statusCode,
        latencyMs: elapsed(),
        error: ok ? null : res.statusCode >= 300 && res.statusCode < 400 ? "redirects are not followed" : null,
        response,
        retryAfterMs: ok ? null : retryAfterMs(res.headers["retry-after"], Date.now()),
      };
    } catch (err) {
      return {
        ok: false,
        statusCode: null,
        latencyMs: elapsed(),
        error: describe(err, opts.timeoutMs),
        response: null,
        retryAfterMs: null,
      };
    }
  }

  return { send, close: () => agent.close() };
}
export type Sender = ReturnType<typeof createSender>;
