import type { FastifyInstance } from "fastify";

/**
 * One dependency /readyz asks about. `check` throws (or takes longer than READINESS_TIMEOUT_MS)
 * when the dependency cannot be used. An `optional` one (the shared cache: the proxy serves without
 * it, from the upstream) is reported but does not make the service unready.
 */
export type ReadinessCheck = { name: string; check: () => Promise<void>; optional?: boolean };

type CheckState = "ok" | "unavailable";
export type Readiness = { ready: boolean; checks: Record<string, CheckState> };

/** How long a readiness answer is reused: a storm of probes costs one check a second, whatever its rate. */
export const READINESS_CACHE_MS = 1000;
/** A check that takes longer counts as unavailable, so /readyz answers in bounded time whatever hangs. */
export const READINESS_TIMEOUT_MS = 2000;

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The readiness of a set of checks, computed at most once per READINESS_CACHE_MS: callers in the
 * same second share one answer, and callers during a check share that check (single flight).
 */
export function readinessOf(checks: ReadinessCheck[], onFailure: (name: string, err: unknown) => void, now = () => Date.now()) {
  let cached: { at: number; answer: Readiness } | undefined;
  let inFlight: Promise<Readiness> | undefined;

  async function evaluate(): Promise<Readiness> {
    const states = await Promise.all(
      checks.map(async (c): Promise<[ReadinessCheck, CheckState]> => {
        try {
          await within(c.check(), READINESS_TIMEOUT_MS, c.name);
          return [c, "ok"];
        } catch (err) {
          onFailure(c.name, err);
          return [c, "unavailable"];
        }
      }),
    );
    return {
      ready: states.every(([c, s]) => s === "ok" || c.optional === true),
      checks: Object.fromEntries(states.map(([c, s]) => [c.name, s])),
    };
  }

  return (): Promise<Readiness> => {
    if (cached && now() - cached.at < READINESS_CACHE_MS) return Promise.resolve(cached.answer);
    inFlight ??= evaluate()
      .then((answer) => {
        cached = { at: now(), answer };
        return answer;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}

/**
 * The two probes of every service. `/healthz` is liveness: the process answers, from memory, no
 * I/O (the run contract's URL, the image's HEALTHCHECK): an outage of Postgres must not get every
 * instance restarted. `/readyz` is readiness: 200 while the service's storage, queue and cache
 * answer, else 503 (a load balancer stops sending it traffic until it recovers by itself).
 */
export function installProbes(app: FastifyInstance, checks: ReadinessCheck[]): void {
  const readiness = readinessOf(checks, (name, err) => app.log.warn({ err, check: name }, "readiness check failed"));
  app.get("/healthz", { schema: { hide: true } }, (_request, reply) => {
    reply.send({ status: "ok" });
  });
  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    const { ready, checks: states } = await readiness();
    return reply.status(ready ? 200 : 503).send({ status: ready ? "ok" : "unavailable", checks: states });
  });
}
