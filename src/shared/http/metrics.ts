import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { BoundCounter, BoundHistogram, type CounterSeries, type HistogramSeries } from "./bound-metrics.js";
import type { FastifyInstance } from "fastify";
import { onAnswerByRoute } from "./route-hooks.js";

/**
 * Prometheus metrics of this process, served at /metrics on every port. One registry per process
 * (`npm start` runs every service in one process, so series carry a `service` label). Metrics whose
 * value lives elsewhere (queue depth, sync lag) are read at scrape time from the sources that
 * registered themselves, so nothing polls between scrapes.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: "hirebridge_" });

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new BoundCounter({
  name: "hirebridge_http_requests_total",
  help: "HTTP requests answered, by service, method, route template and status.",
  labelNames: ["service", "method", "route", "status_code"] as const,
  registers: [registry],
});
export const httpDuration = new BoundHistogram({
  name: "hirebridge_http_request_duration_seconds",
  help: "Time to answer an HTTP request, by service, method, route template and status.",
  labelNames: ["service", "method", "route", "status_code"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
export const upstreamDuration = new BoundHistogram({
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

/** Request metrics by route template (never the raw URL, whose ids would explode cardinality), and GET /metrics. */
export function installMetrics(app: FastifyInstance, service: string): void {
  // The route template is fixed per route at registration (onAnswerByRoute).
  // Each route keeps its series by method and status, so a request finds both in one look-up of a
  // number-keyed map (no label key string built per request).
  onAnswerByRoute(app, (route) => {
    const label = route ?? "unmatched";
    const byMethod = new Map<string, Map<number, readonly [CounterSeries, HistogramSeries]>>();
    let resets = 0;
    const seriesOf = (method: string, status: number) => {
      if (httpRequests.resets + httpDuration.resets !== resets) {
        resets = httpRequests.resets + httpDuration.resets;
        byMethod.clear();
      }
      let byStatus = byMethod.get(method);
      if (!byStatus) {
        byStatus = new Map();
        byMethod.set(method, byStatus);
      }
      let pair = byStatus.get(status);
      if (!pair) {
        const code = String(status);
        pair = [httpRequests.series(service, method, label, code), httpDuration.series(service, method, label, code)] as const;
        byStatus.set(status, pair);
      }
      return pair;
    };
    return (request, reply) => {
      const [count, duration] = seriesOf(request.method, reply.statusCode);
      count.inc();
      duration.observe(reply.elapsedTime / 1000);
    };
  });
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("content-type", registry.contentType);
    return registry.metrics();
  });
}
