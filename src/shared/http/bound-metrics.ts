import type { Metric, Registry } from "prom-client";

/**
 * Counters and histograms for the per-request hot paths, whose series are bound once per label set
 * and then updated with plain arithmetic. prom-client validates and hashes a label set on every
 * `inc`/`observe`, even through a bound child; on the proxy's hot path (a request counter, a
 * request histogram and an upstream histogram) that was about 6% of a proxied request's CPU
 * (bench/proxy.md). These are read by the same registry at scrape time and print the same text
 * exposition as prom-client's own (a unit test renders both side by side).
 *
 * Only for labels with few values (service, method, route template, status, operation): every
 * label set seen is kept for the life of the process, as prom-client keeps it too.
 */

type Labels = Record<string, string | number>;
type Sample = { value: number; labels: Labels; metricName?: string };

abstract class BoundMetric<S> {
  readonly #series = new Map<string, { labels: Labels; series: S }>();
  readonly aggregator = "sum" as const;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    registers: readonly Registry[],
  ) {
    // The registry reads name, help, type, aggregator, get() and reset(), which this class provides.
    for (const registry of registers) registry.registerMetric(this as unknown as Metric);
  }

  protected abstract create(): S;
  protected abstract samples(labels: Labels, series: S): Sample[];

  /** The series of one label set, values in `labelNames` order; made on first use and kept. */
  series(...values: string[]): S {
    const key = values.length === 1 ? values[0]! : values.join("\u0000");
    let entry = this.#series.get(key);
    if (entry === undefined) {
      if (values.length !== this.labelNames.length) {
        throw new Error(`${this.name}: expected ${this.labelNames.length} label values, got ${values.length}`);
      }
      const labels: Labels = {};
      for (const [i, name] of this.labelNames.entries()) labels[name] = values[i]!;
      entry = { labels, series: this.create() };
      this.#series.set(key, entry);
    }
    return entry.series;
  }

  /** prom-client's form: the series of a labels object. */
  labels(labels: Record<string, string>): S {
    return this.series(...this.labelNames.map((name) => labels[name] ?? ""));
  }

  async get() {
    const values: Sample[] = [];
    for (const { labels, series } of this.#series.values()) values.push(...this.samples(labels, series));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.#series.clear();
    this.resets++;
  }

  /** How many times reset() dropped every series (a holder of series objects drops its own then). */
  resets = 0;

  abstract readonly type: "counter" | "histogram";
}

export class CounterSeries {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

export class BoundCounter extends BoundMetric<CounterSeries> {
  readonly type = "counter";
  constructor(config: { name: string; help: string; labelNames: readonly string[]; registers: readonly Registry[] }) {
    super(config.name, config.help, config.labelNames, config.registers);
  }
  protected create(): CounterSeries {
    return new CounterSeries();
  }
  protected samples(labels: Labels, series: CounterSeries): Sample[] {
    return [{ value: series.value, labels }];
  }
  /** prom-client's form: `inc(labels, by)`. */
  inc(labels: Record<string, string>, by = 1): void {
    this.labels(labels).inc(by);
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class BoundHistogram extends BoundMetric<HistogramSeries> {
  readonly type = "histogram";
  readonly buckets: readonly number[];
  constructor(config: {
    name: string;
    help: string;
    labelNames: readonly string[];
    buckets: readonly number[];
    registers: readonly Registry[];
  }) {
    super(config.name, config.help, config.labelNames, config.registers);
    this.buckets = [...config.buckets].sort((a, b) => a - b);
  }
  protected create(): HistogramSeries {
    return new HistogramSeries(this.buckets);
  }
  protected samples(labels: Labels, series: HistogramSeries): Sample[] {
    const out: Sample[] = [];
    let cumulative = 0;
    this.buckets.forEach((le, i) => {
      cumulative += series.counts[i]!;
      out.push({ value: cumulative, labels: { le, ...labels }, metricName: `${this.name}_bucket` });
    });
    out.push(
      { value: series.count, labels: { le: "+Inf", ...labels }, metricName: `${this.name}_bucket` },
      { value: series.sum, labels, metricName: `${this.name}_sum` },
      { value: series.count, labels, metricName: `${this.name}_count` },
    );
    return out;
  }
  /** prom-client's form: `observe(labels, value)`. */
  observe(labels: Record<string, string>, value: number): void {
    this.labels(labels).observe(value);
  }
}
