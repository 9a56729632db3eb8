/**
 * The test's load balancer, behaving as nginx does with its defaults (`max_fails=1 fail_timeout=10s`):
 * round-robin over the instances of one service on keep-alive connections; a backend that refuses
 * a connection is gone (stopped or killed), so the request goes to the next backend and the refusing
 * one is left out for `failTimeoutMs`. Refusal is the only failure it retries. Every other failure
 * (a 5xx, a reset or closed connection, a timeout) is the client's, and is recorded as such.
 */
import { Agent, request } from "undici";

export type Outcome = { instance: string; status: number; body: string };
export type Failure = { path: string; error: string; at: Date };
type Backend = { name: string; origin: string };

const isRefused = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } } | null;
  return e?.code === "ECONNREFUSED" || e?.cause?.code === "ECONNREFUSED";
};

export class Balancer {
  readonly #agent = new Agent({ keepAliveTimeout: 30_000, connections: 32 });
  readonly #downUntil = new Map<string, number>();
  #next = 0;
  /** Requests sent to another backend because one refused the connection. */
  rerouted = 0;
  readonly failures: Failure[] = [];
  /** Answers per instance and status, e.g. `{ "api-a": { 200: 310 } }`. */
  readonly served: Record<string, Record<number, number>> = {};

  constructor(
    private readonly backends: Backend[],
    private readonly opts: { failTimeoutMs?: number } = {},
  ) {}

  /** Backends in the order this request tries them: round-robin, those marked down last. */
  #order(): Backend[] {
    const start = this.#next++ % this.backends.length;
    const rotated = [...this.backends.slice(start), ...this.backends.slice(0, start)];
    const now = Date.now();
    const up = rotated.filter((b) => (this.#downUntil.get(b.name) ?? 0) <= now);
    return [...up, ...rotated.filter((b) => !up.includes(b))];
  }

  /** Sends `path` to the next backend (the next after that when it refuses); undefined when the request failed. */
  async send(
    path: string,
    init: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string } = {},
  ): Promise<Outcome | undefined> {
    const order = this.#order();
    for (const [i, backend] of order.entries()) {
      try {
        const res = await request(`${backend.origin}${path}`, {
          method: init.method ?? "GET",
          headers: init.headers ?? {},
          ...(init.body !== undefined ? { body: init.body } : {}),
          dispatcher: this.#agent,
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        const body = await res.body.text();
        const perStatus = this.served[backend.name] ?? {};
        this.served[backend.name] = perStatus;
        perStatus[res.statusCode] = (perStatus[res.statusCode] ?? 0) + 1;
        return { instance: backend.name, status: res.statusCode, body };
      } catch (err) {
        if (isRefused(err)) {
          this.#downUntil.set(backend.name, Date.now() + (this.opts.failTimeoutMs ?? 10_000));
          if (i < order.length - 1) {
            this.rerouted++;
            continue;
          }
        }
        const e = err as { code?: string; message?: string };
        this.failures.push({ path, error: `${backend.name}: ${e.code ?? ""} ${e.message ?? String(err)}`, at: new Date() });
        return undefined;
      }
    }
    return undefined;
  }

  /** Answers with a 5xx status, counted over every backend. */
  serverErrors(): number {
    return Object.values(this.served)
      .flatMap((perStatus) => Object.entries(perStatus))
      .filter(([status]) => Number(status) >= 500)
      .reduce((n, [, count]) => n + count, 0);
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
