/**
 * The device snapshot cache (migration 1600) over PostgreSQL/PGlite: the snapshot refresher
 * writes a provider's snapshots in one transaction, the device directory reads them all.
 */
import type { DeviceSnapshot } from '../../devices/device-snapshot.js';
import type { DeviceSnapshotStore, SnapshotRefreshState } from '../../devices/snapshot-refresher.js';
import type { Database } from '../db.js';

export function pgDeviceSnapshotStore(db: Database): DeviceSnapshotStore {
  return {
    async snapshots() {
      const r = await db.query<{ provider: string; backend: string; snapshot: DeviceSnapshot }>('SELECT provider, backend, snapshot FROM device_snapshots');
      return new Map(r.rows.map((x) => [`${x.provider}/${x.backend}`, typeof x.snapshot === 'string' ? (JSON.parse(x.snapshot) as DeviceSnapshot) : x.snapshot]));
    },
    async saveSnapshots(provider, snapshots) {
      await db.tx(async (q) => {
        await q.query('DELETE FROM device_snapshots WHERE provider = $1', [provider]);
        for (const s of snapshots) {
          await q.query('INSERT INTO device_snapshots (provider, backend, snapshot, fetched_at) VALUES ($1, $2, $3::jsonb, $4)', [provider, s.backend, JSON.stringify(s), s.fetchedAt]);
        }
        await q.query(
          `INSERT INTO device_snapshot_refreshes (provider, last_success_at, consecutive_failures, last_error) VALUES ($1, now(), 0, NULL)
           ON CONFLICT (provider) DO UPDATE SET last_success_at = now(), consecutive_failures = 0, last_error = NULL`,
          [provider],
        );
      });
    },
    async recordFailure(provider, message) {
      const r = await db.query<{ consecutive_failures: number }>(
        `INSERT INTO device_snapshot_refreshes (provider, last_failure_at, consecutive_failures, last_error) VALUES ($1, now(), 1, $2)
         ON CONFLICT (provider) DO UPDATE SET last_failure_at = now(), consecutive_failures = device_snapshot_refreshes.consecutive_failures + 1, last_error = $2
         RETURNING consecutive_failures`,
        [provider, message.slice(0, 500)],
      );
      return r.rows[0]?.consecutive_failures ?? 1;
    },
    async refreshState(provider) {
      const r = await db.query<{ last_success_at: Date | null; last_failure_at: Date | null; consecutive_failures: number; last_error: string | null }>(
        'SELECT last_success_at, last_failure_at, consecutive_failures, last_error FROM device_snapshot_refreshes WHERE provider = $1',
        [provider],
      );
      const x = r.rows[0];
      if (x === undefined) return null;
      const state: SnapshotRefreshState = {
        lastSuccessAt: x.last_success_at === null ? null : new Date(x.last_success_at),
        lastFailureAt: x.last_failure_at === null ? null : new Date(x.last_failure_at),
        consecutiveFailures: x.consecutive_failures,
        lastError: x.last_error,
      };
      return state;
    },
  };
}
