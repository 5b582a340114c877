/**
 * Keeps the device snapshot cache fresh: each provider's `DeviceSnapshotSource` is asked on a
 * schedule (EXECUTION_SNAPSHOT_REFRESH_MS) and what it reports replaces that provider's cached
 * snapshots in one transaction. A failed refresh keeps the last good snapshots (their
 * `calibrated_at` and `fetched_at` say how old they are) and is tried again after a backoff
 * that doubles per consecutive failure, up to EXECUTION_SNAPSHOT_MAX_BACKOFF_MS; the failure
 * count lives in the database so a restart keeps backing off. Runs in the worker process
 * (`serve --role worker|all`), one loop per source.
 */
import type { DeviceSnapshot, DeviceSnapshotSource } from './device-snapshot.js';

export interface SnapshotRefreshState {
  readonly lastSuccessAt: Date | null;
  readonly lastFailureAt: Date | null;
  readonly consecutiveFailures: number;
  readonly lastError: string | null;
}

/** Port (src/store/execution/device-snapshot-sql.ts implements it). Keys of `snapshots()` are `provider/backend`. */
export interface DeviceSnapshotStore {
  snapshots(): Promise<Map<string, DeviceSnapshot>>;
  /** Replaces the provider's snapshots and clears its failure count. */
  saveSnapshots(provider: string, snapshots: readonly DeviceSnapshot[]): Promise<void>;
  /** Counts a failed refresh; returns the consecutive failures now. */
  recordFailure(provider: string, message: string): Promise<number>;
  refreshState(provider: string): Promise<SnapshotRefreshState | null>;
}

export interface RefresherOptions {
  readonly intervalMs: number;
  readonly maxBackoffMs: number;
  readonly onError?: (e: unknown, provider: string) => void;
}

/** The wait after `failures` consecutive failures: the first retry comes soon, then doubles. */
export function backoffMs(failures: number, o: Pick<RefresherOptions, 'intervalMs' | 'maxBackoffMs'>): number {
  if (failures <= 0) return o.intervalMs;
  const first = Math.min(o.intervalMs, 30_000);
  return Math.min(first * 2 ** Math.min(failures - 1, 30), o.maxBackoffMs);
}

export class SnapshotRefresher {
  readonly name = 'device-snapshot-refresher';
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private running = new Set<Promise<unknown>>();
  private stopped = true;

  constructor(
    private readonly sources: readonly DeviceSnapshotSource[],
    private readonly store: DeviceSnapshotStore,
    private readonly o: RefresherOptions,
  ) {}

  /** One refresh of one source; the wait before the next. */
  async refresh(source: DeviceSnapshotSource): Promise<{ ok: boolean; nextInMs: number; error?: string }> {
    try {
      const snaps = await source.fetchSnapshots(AbortSignal.timeout(Math.max(this.o.intervalMs, 60_000)));
      await this.store.saveSnapshots(source.provider, snaps);
      return { ok: true, nextInMs: this.o.intervalMs };
    } catch (e) {
      this.o.onError?.(e, source.provider);
      const message = e instanceof Error ? e.message : String(e);
      const failures = await this.store.recordFailure(source.provider, message).catch(() => 1);
      return { ok: false, nextInMs: backoffMs(failures, this.o), error: message };
    }
  }

  /** Every source once (tests, and `start` at boot). */
  async refreshAll(): Promise<Array<{ provider: string; ok: boolean; nextInMs: number; error?: string }>> {
    return Promise.all(this.sources.map(async (s) => ({ provider: s.provider, ...(await this.refresh(s)) })));
  }

  private schedule(source: DeviceSnapshotSource, ms: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      const p = this.refresh(source).then((r) => this.schedule(source, r.nextInMs));
      this.running.add(p);
      void p.finally(() => this.running.delete(p));
    }, ms);
    t.unref?.();
    this.timers.set(source.provider, t);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    for (const s of this.sources) {
      // A restart during a backoff keeps waiting it out rather than asking the provider at once.
      void this.store
        .refreshState(s.provider)
        .catch(() => null)
        .then((st) => this.schedule(s, st === null || st.consecutiveFailures === 0 ? 0 : backoffMs(st.consecutiveFailures, this.o)));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }
}
