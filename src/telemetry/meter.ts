import type { CounterName, GaugeName, HistogramName, Labels } from './metric-catalog.js';

/**
 * The port the domains record measurements through (src/telemetry/prom-meter.ts implements it).
 * Names and labels are the catalog's (metric-catalog.ts), checked at compile time.
 */
export interface Meter {
  inc<N extends CounterName>(name: N, labels: Labels<N>, by?: number): void;
  observe<N extends HistogramName>(name: N, labels: Labels<N>, value: number): void;
  /**
   * Reads a set of gauges (and cluster-wide counters) at scrape time, e.g. from the database. `read`
   * answers rows of label values and a number; a failing read leaves the series out of that scrape.
   */
  collect<N extends GaugeName | CounterName>(name: N, read: () => Promise<ReadonlyArray<readonly [Labels<N>, number]>> | ReadonlyArray<readonly [Labels<N>, number]>): void;
}

/** Records nothing (unit tests of domain code, tools). */
export const noopMeter: Meter = {
  inc() {},
  observe() {},
  collect() {},
};

/** Seconds since `start` (a `performance.now()` reading). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;
