import type { Meter } from '../telemetry/meter.js';
import type { BackgroundWorker } from '../worker.js';

export interface LedgerCheckResult {
  readonly ok: boolean;
  readonly problems: readonly string[];
}

export interface LedgerCheckReport {
  /** Called after each check with its result; `error` when the check itself failed. */
  (outcome: { result: LedgerCheckResult } | { error: unknown }): void;
}

/**
 * Runs the ledger reconciliation (`qrail ledger check`) every `intervalMs` in the worker role, so an
 * alert can fire on a broken invariant without an operator running the command: the last check's
 * violations and time are gauges, each check's outcome a counter. The check reads the whole ledger
 * (docs/decisions/operations-ledger-check-metric.md), which is why it is periodic and not read at
 * scrape. 0 turns it off. The first check comes after a random part of the interval (at most a
 * minute), so workers started together do not all read the ledger at once.
 */
export class LedgerCheckWorker implements BackgroundWorker {
  readonly name = 'billing-ledger-check';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private last: { violations: number; at: number } | undefined;

  constructor(
    private readonly check: () => Promise<LedgerCheckResult>,
    private readonly intervalMs: number,
    private readonly meter: Meter,
    private readonly report: LedgerCheckReport = () => undefined,
  ) {
    meter.collect('qrail_ledger_check_violations', () => (this.last === undefined ? [] : [[{}, this.last.violations]]));
    meter.collect('qrail_ledger_check_last_run_timestamp_seconds', () => (this.last === undefined ? [] : [[{}, this.last.at]]));
  }

  start(): void {
    if (this.timer !== undefined || this.intervalMs === 0) return;
    const tick = () => {
      this.running = this.running.then(() => this.checkNow());
      this.timer = setTimeout(tick, this.intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, Math.floor(Math.random() * Math.min(this.intervalMs, 60_000)));
    this.timer.unref();
  }

  /** One check; never throws (a failing check is counted and reported). */
  async checkNow(): Promise<LedgerCheckResult | undefined> {
    try {
      const result = await this.check();
      this.last = { violations: result.problems.length, at: Math.floor(Date.now() / 1000) };
      this.meter.inc('qrail_ledger_checks_total', { outcome: result.ok ? 'ok' : 'violations' });
      this.report({ result });
      return result;
    } catch (error) {
      this.meter.inc('qrail_ledger_checks_total', { outcome: 'error' });
      this.report({ error });
      return undefined;
    }
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
