import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Meter } from './meter.js';
import { METRICS, type MetricName } from './metric-catalog.js';

type Row = readonly [Readonly<Record<string, string>>, number];
type Reader = () => Promise<ReadonlyArray<Row>> | ReadonlyArray<Row>;

// The Node process metrics (`process_*`, `nodejs_*`) are the process's, not an app's: one registry
// for them, created once (each collector starts event-loop and GC monitors), shared by every app.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    // Gauges named like counters, which `promtool check metrics` flags; `sum(nodejs_active_handles)`
    // (by type, kept) is the same figure.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) processRegistry.removeSingleMetric(name);
  }
  return processRegistry;
}

/** The Meter over prom-client: one registry per app, rendered with the process metrics. */
export class PromMeter implements Meter {
  readonly registry = new Registry();
  private readonly counters = new Map<string, Counter>();
  private readonly histograms = new Map<string, Histogram>();
  private readonly readers = new Map<string, Reader[]>();

  constructor() {
    // Now, not at the first scrape: prom-client counts process CPU from when its collector is
    // created, so a lazy start made the first scrape report almost no CPU (0 on a coarse clock).
    processMetrics();
    for (const [name, def] of Object.entries(METRICS)) {
      const labelNames = [...def.labels];
      const readers: Reader[] = [];
      this.readers.set(name, readers);
      const lastRows = new Map<Reader, ReadonlyArray<Row>>();
      // Series read at scrape time start empty each scrape: a label set that disappeared is not reported stale.
      // A reader that fails (the database is down) repeats its last rows instead of making its series
      // vanish: a gap looks like "nothing queued", a repeated value beside qrail_db_up 0 reads as stale.
      const refresh = async (metric: Gauge | Counter): Promise<void> => {
        if (readers.length === 0) return;
        metric.reset();
        for (const read of readers) {
          let rows: ReadonlyArray<Row>;
          try {
            rows = await read();
            lastRows.set(read, rows);
          } catch {
            rows = lastRows.get(read) ?? [];
          }
          for (const [labels, v] of rows) {
            if (metric instanceof Gauge) metric.set(labels, v);
            else if (v > 0) metric.inc(labels, v);
          }
        }
      };
      if (def.type === 'counter') {
        const c: Counter = new Counter({
          name,
          help: def.help,
          labelNames,
          registers: [this.registry],
          async collect() {
            await refresh(c);
          },
        });
        this.counters.set(name, c);
      } else if (def.type === 'gauge') {
        const g: Gauge = new Gauge({
          name,
          help: def.help,
          labelNames,
          registers: [this.registry],
          async collect() {
            await refresh(g);
          },
        });
      } else {
        this.histograms.set(name, new Histogram({ name, help: def.help, labelNames, buckets: [...def.buckets], registers: [this.registry] }));
      }
    }
  }

  inc(name: MetricName, labels: Readonly<Record<string, string>>, by = 1): void {
    const c = this.counters.get(name);
    if (c === undefined) return;
    // Series read at scrape are reset then; only in-process counters keep bound children.
    if ((this.readers.get(name)?.length ?? 0) > 0) c.inc(labels, by);
    else this.bound(name, labels, () => c.labels(labels)).inc(by);
  }

  observe(name: MetricName, labels: Readonly<Record<string, string>>, value: number): void {
    const h = this.histograms.get(name);
    if (h !== undefined) this.bound(name, labels, () => h.labels(labels)).observe(value);
  }

  // prom-client hashes a label object (sorting its keys) on every call; a series' child, bound once, does not.
  private readonly children = new Map<string, { inc(by?: number): void; observe(v: number): void }>();
  private bound(name: string, labels: Readonly<Record<string, string>>, make: () => object): { inc(by?: number): void; observe(v: number): void } {
    const key = `${name}\u0000${Object.values(labels).join('\u0000')}`;
    let child = this.children.get(key);
    if (child === undefined) {
      child = make() as { inc(by?: number): void; observe(v: number): void };
      this.children.set(key, child);
    }
    return child;
  }

  collect(name: MetricName, read: Reader): void {
    this.readers.get(name)?.push(read);
  }

  /** The Prometheus text exposition. */
  render(): Promise<string> {
    return Registry.merge([processMetrics(), this.registry]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
