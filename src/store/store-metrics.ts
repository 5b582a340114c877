import type { Meter } from '../telemetry/meter.js';
import type { Database } from './db.js';
import { EXECUTION_QUEUE } from './execution/execution-repository.js';
import { JOBS_QUEUE } from './jobs/jobs-queue.js';
import type { QueueTable } from './queue/pg-queue.js';

// Queue label → its table: the same names the queue workers' own metrics use (queueLabel).
const QUEUES: ReadonlyArray<readonly [string, QueueTable<string>]> = [
  ['jobs', JOBS_QUEUE],
  ['execution', EXECUTION_QUEUE],
];

const list = (states: readonly string[]) => states.map((s) => `'${s}'`).join(', ');

interface Snapshot {
  readonly queues: ReadonlyArray<{ queue: string; depth: number; oldest: number; running: number }>;
  readonly holdsOpen: ReadonlyMap<string, number>;
  readonly holdsResolved: ReadonlyArray<{ kind: string; status: string; n: number }>;
  readonly moved: ReadonlyArray<{ kind: string; micros: number }>;
  readonly webhookBacklog: number;
}

/** Every figure read from the database, one statement after the other on whatever connection is free. */
async function readSnapshot(db: Database): Promise<Snapshot> {
  const queues = [];
  for (const [queue, t] of QUEUES) {
    const r = await db.query<{ depth: string; oldest: number | null; running: string }>(
      `SELECT (SELECT count(*) FROM ${t.table} WHERE status = '${t.machine.queued}') AS depth,
              (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM ${t.table} WHERE status = '${t.machine.queued}') AS oldest,
              (SELECT count(*) FROM ${t.table} WHERE status IN (${list(t.machine.leased)})) AS running`,
    );
    const row = r.rows[0];
    queues.push({ queue, depth: Number(row?.depth ?? 0), oldest: Math.max(0, Number(row?.oldest ?? 0)), running: Number(row?.running ?? 0) });
  }
  const open = await db.query<{ kind: string; n: string }>("SELECT kind, count(*) AS n FROM billing_holds WHERE status = 'pending' GROUP BY kind");
  const resolved = await db.query<{ kind: string; status: string; n: string }>("SELECT kind, status, count(*) AS n FROM billing_holds WHERE status <> 'pending' GROUP BY kind, status");
  // A sum over the ledger: exact and cluster-wide, at the cost of reading it (indexed by nothing smaller).
  const moved = await db.query<{ kind: string; micros: string }>('SELECT kind, sum(amount_micros)::text AS micros FROM ledger_transfers GROUP BY kind');
  // Events not yet fanned out to endpoints plus deliveries still to send (both partial indexes, migration 0900).
  const backlog = await db.query<{ n: string }>("SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') + (SELECT count(*) FROM webhook_events WHERE sequence IS NULL) AS n");
  return {
    queues,
    holdsOpen: new Map(open.rows.map((x) => [x.kind, Number(x.n)])),
    holdsResolved: resolved.rows.map((x) => ({ kind: x.kind, status: x.status, n: Number(x.n) })),
    moved: moved.rows.map((x) => ({ kind: x.kind, micros: Number(x.micros) })),
    webhookBacklog: Number(backlog.rows[0]?.n ?? 0),
  };
}

/**
 * Figures read from the database when /metrics is scraped: they describe the whole deployment
 * (every node reports the same), and each query is served by a partial index on the queued or
 * leased rows (migrations 0200, 0450) or by the ledger itself. A scrape reads them once, one
 * statement at a time: it takes one pooled connection, not one per figure (a scrape that took
 * seven at once showed as pool saturation on an idle process). When the read fails (the database
 * is down), `qrail_db_up` reads 0 and the meter repeats each series' last values.
 */
export function registerStoreMetrics(meter: Meter, db: Database): void {
  // The collectors of one scrape start together and share the read in flight; the next scrape reads anew.
  let inFlight: Promise<Snapshot> | undefined;
  const snapshot = (): Promise<Snapshot> => {
    if (inFlight === undefined) {
      const read = readSnapshot(db);
      inFlight = read;
      const settle = () => {
        if (inFlight === read) inFlight = undefined;
      };
      read.then(settle, settle);
    }
    return inFlight;
  };
  meter.collect('qrail_db_up', async () => [
    [
      {},
      await snapshot().then(
        () => 1,
        () => 0,
      ),
    ],
  ]);
  meter.collect('qrail_queue_depth', async () => (await snapshot()).queues.map((q) => [{ queue: q.queue }, q.depth] as const));
  meter.collect('qrail_queue_oldest_age_seconds', async () => (await snapshot()).queues.map((q) => [{ queue: q.queue }, q.oldest] as const));
  meter.collect('qrail_queue_running', async () => (await snapshot()).queues.map((q) => [{ queue: q.queue }, q.running] as const));
  meter.collect('qrail_holds_open', async () => {
    const by = (await snapshot()).holdsOpen;
    return ['job', 'hardware'].map((kind) => [{ kind }, by.get(kind) ?? 0] as const);
  });
  meter.collect('qrail_holds_resolved_total', async () => (await snapshot()).holdsResolved.map((x) => [{ kind: x.kind, outcome: x.status }, x.n] as const));
  meter.collect('qrail_money_moved_micro_usd_total', async () => (await snapshot()).moved.map((x) => [{ kind: x.kind }, x.micros] as const));
  meter.collect('qrail_webhook_backlog', async () => [[{}, (await snapshot()).webhookBacklog]]);

  meter.collect('qrail_db_pool_connections', () => {
    const c = db.stats?.().connections;
    if (c === null || c === undefined) return [];
    return [
      [{ state: 'total' }, c.total],
      [{ state: 'idle' }, c.idle],
      [{ state: 'waiting' }, c.waiting],
    ];
  });
  meter.collect('qrail_db_query_errors_total', () => [...(db.stats?.().errorsByClass ?? new Map<string, number>())].map(([cls, n]) => [{ class: cls }, n] as const));
}
