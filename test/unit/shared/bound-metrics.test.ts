import assert from "node:assert/strict";
import { test } from "node:test";
import { Counter, Histogram, Registry } from "prom-client";
import { BoundCounter, BoundHistogram } from "../../../src/shared/http/bound-metrics.js";

const BUCKETS = [0.001, 0.01, 0.1, 1];
const LABELS = ["service", "route", "status_code"] as const;

/** The same observations through prom-client's metrics and the bound ones, each in a registry of its own. */
function both() {
  const reference = new Registry();
  const bound = new Registry();
  return {
    reference,
    bound,
    refHistogram: new Histogram({
      name: "t_duration_seconds",
      help: "Latency.",
      labelNames: LABELS,
      buckets: BUCKETS,
      registers: [reference],
    }),
    refCounter: new Counter({ name: "t_requests_total", help: "Requests.", labelNames: LABELS, registers: [reference] }),
    histogram: new BoundHistogram({
      name: "t_duration_seconds",
      help: "Latency.",
      labelNames: LABELS,
      buckets: BUCKETS,
      registers: [bound],
    }),
    counter: new BoundCounter({ name: "t_requests_total", help: "Requests.", labelNames: LABELS, registers: [bound] }),
  };
}

const OBSERVATIONS: Array<[string, string, string, number]> = [
  ["proxy", "/api/v1/ats/jobs", "200", 0.0004],
  ["proxy", "/api/v1/ats/jobs", "200", 0.001], // on a bound: counted in that bucket (le is inclusive)
  ["proxy", "/api/v1/ats/jobs", "200", 0.05],
  ["proxy", "/api/v1/ats/jobs", "404", 0.002],
  ["proxy", 'a "quoted"\\route\n', "500", 7], // above every bound, and a label value that needs escaping
  ["api", "/api/v1/org_id", "200", 0],
];

test("bound metrics print exactly what prom-client prints for the same observations", async () => {
  const m = both();
  for (const [service, route, status_code, seconds] of OBSERVATIONS) {
    m.refHistogram.observe({ service, route, status_code }, seconds);
    m.refCounter.inc({ service, route, status_code });
    m.histogram.series(service, route, status_code).observe(seconds);
    m.counter.series(service, route, status_code).inc();
  }
  m.refCounter.inc({ service: "proxy", route: "/x", status_code: "200" }, 5);
  m.counter.inc({ service: "proxy", route: "/x", status_code: "200" }, 5);
  assert.equal(await m.bound.metrics(), await m.reference.metrics());
  // As JSON too, but for the (empty) exemplar fields prom-client adds and exemplar-less metrics leave out.
  const withoutExemplars = (metrics: unknown) =>
    JSON.parse(JSON.stringify(metrics, (key, value: unknown) => (key === "exemplar" ? undefined : value)));
  assert.deepEqual(withoutExemplars(await m.bound.getMetricsAsJSON()), withoutExemplars(await m.reference.getMetricsAsJSON()));
});

test("a bound series is the same object for the same labels, and reset empties the metric", async () => {
  const m = both();
  const series = m.histogram.series("proxy", "/r", "200");
  assert.equal(m.histogram.series("proxy", "/r", "200"), series);
  assert.equal(m.histogram.labels({ service: "proxy", route: "/r", status_code: "200" }), series);
  series.observe(0.5);
  assert.match(await m.bound.metrics(), /t_duration_seconds_count\{service="proxy",route="\/r",status_code="200"\} 1/);
  m.bound.resetMetrics();
  assert.doesNotMatch(await m.bound.metrics(), /t_duration_seconds_count/);
});

test("a wrong number of label values or a value that is not a number is refused, as prom-client refuses it", () => {
  const m = both();
  assert.throws(() => m.histogram.series("proxy", "/r"), /expected 3 label values, got 2/);
  assert.throws(() => m.histogram.series("proxy", "/r", "200").observe(Number.NaN), TypeError);
});
