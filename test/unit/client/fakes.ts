import type { Clock } from "../../../src/client/core/clock.js";
import type { FetchLike } from "../../../src/client/core/transport.js";

/** A JWT-shaped token (unsigned: the client never verifies signatures) with the given claims. */
export function jwt(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}.c2ln`;
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

export type Seen = { url: string; method: string; headers: Record<string, string>; body: string | undefined };

/**
 * A fetch that answers from a script: each entry is a Response, an Error to throw, "hang" (never
 * answers until aborted), or a function of the request.
 */
export function scriptedFetch(script: (Response | Error | "hang" | ((req: Seen) => Response))[]): { fetch: FetchLike; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetchImpl: FetchLike = async (input, init) => {
    const req: Seen = {
      url: input,
      method: init.method ?? "GET",
      headers: { ...(init.headers as Record<string, string>) },
      body: typeof init.body === "string" ? init.body : undefined,
    };
    seen.push(req);
    const next = script.shift();
    if (next === undefined) throw new Error(`unexpected request ${req.method} ${req.url}`);
    if (next instanceof Error) throw next;
    if (next === "hang") {
      return new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")), { once: true });
      });
    }
    return typeof next === "function" ? next(req) : next;
  };
  return { fetch: fetchImpl, seen };
}

/** A clock that stands still unless moved; sleeps are recorded and return at once. */
export function manualClock(start = Date.UTC(2026, 0, 1)): Clock & { advance(ms: number): void; sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    sleeps,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
    },
  };
}
