import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { App } from "./create-app.js";

/**
 * Prometheus metrics of this process, served at /metrics on every port. One registry per process
 * (`npm start` runs every service in one process, so series carry a `service` label). Metrics whose
 * value lives elsewhere (queue depth, sync lag) are read at scrape time from the sources that
 * registered themselves, so nothing polls between scrapes.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: "hirebridge_" });

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new Counter({
  name: "hirebridge_http_requests_total",
  help: "HTTP requests answered, by service, method, route template and status.",
  labelNames: ["service", "method", "route", "status_code"] as const,
  registers: [registry],
});
export const httpDuration = new Histogram({
  name: "hirebridge_http_request_duration_seconds",
  help: "Time to answer an HTTP request, by service, method, route template and status.",
  labelNames: ["service", "method", "route", "status_code"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
export const upstreamDuration = new Histogram({
  name: "hirebridge_upstream_request_duration_seconds",
  help: "Upstream (unified ATS API) calls: time to the answer's headers, by operation and status (or error kind).",
  labelNames: ["operation", "status"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
export const upstreamErrors = new Counter({
  name: "hirebridge_upstream_errors_total",
  help: "Upstream calls that failed (5xx, 429, timeouts, refused or dropped connections, rejected API key), by operation and kind.",
  labelNames: ["operation", "kind"] as const,
  registers: [registry],
});
export const cacheRequests = new Counter({
  name: "hirebridge_cache_requests_total",
  help: "Proxy cache look-ups by result (hit, miss, bypass); hit ratio = hit / (hit + miss).",
  labelNames: ["result"] as const,
  registers: [registry],
});
export const jobFailures = new Counter({
  name: "hirebridge_job_failures_total",
  help: "Durable jobs whose attempt failed (retried with backoff, or given up after the last retry), by queue.",
  labelNames: ["queue"] as const,
  registers: [registry],
});

type Source<T> = () => Promise<T[]>;
const queueSources = new Set<Source<{ queue: string; state: string; count: number }>>();
const lagSources = new Set<Source<{ integration_id: string; model: string; seconds: number }>>();

new Gauge({
  name: "hirebridge_job_queue_depth",
  help: "Jobs in the durable queue by queue and state (ready, deferred, active).",
  labelNames: ["queue", "state"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const source of queueSources) {
      for (const s of await source().catch(() => [])) this.set({ queue: s.queue, state: s.state }, s.count);
    }
  },
});
new Gauge({
  name: "hirebridge_sync_lag_seconds",
  help: "Per integration and model: seconds since the data the last successful sync read up to (its checkpoint).",
  labelNames: ["integration_id", "model"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const source of lagSources) {
      for (const s of await source().catch(() => [])) this.set({ integration_id: s.integration_id, model: s.model }, s.seconds);
    }
  },
});

/** Registers a scrape-time source; returns its removal (call it when the owner closes). */
export function addQueueDepthSource(source: Source<{ queue: string; state: string; count: number }>): () => void {
  queueSources.add(source);
  return () => queueSources.delete(source);
}
export function addSyncLagSource(source: Source<{ integration_id: string; model: string; seconds: number }>): () => void {
  lagSources.add(source);
  return () => lagSources.delete(source);
}

/**
 * A metric's series for one set of label values, bound on first use and kept: prom-client hashes
 * a label set on every call otherwise. Only for labels with few values (routes, statuses, operations).
 */
export function boundSeries<S>(bind: (...values: string[]) => S): (...values: string[]) => S {
  const memo = new Map<string, S>();
  return (...values) => {
    const key = values.join("\u0000");
    let series = memo.get(key);
    if (series === undefined) memo.set(key, (series = bind(...values)));
    return series;
  };
}

/** Request metrics by route template (never the raw URL, whose ids would explode cardinality), and GET /metrics. */
export function installMetrics(app: App, service: string): void {
  const series = boundSeries((method, route, status_code) => {
    const labels = { service, method: method!, route: route!, status_code: status_code! };
    return { requests: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
  });
  app.addHook("onResponse", (request, reply, done) => {
    const s = series(request.method, request.routeOptions.url ?? "unmatched", String(reply.statusCode));
    s.requests.inc();
    s.duration.observe(reply.elapsedTime / 1000);
    done();
  });
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("content-type", registry.contentType);
    return registry.metrics();
  });
}
