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

/**
 * Figures read from the database when /metrics is scraped: they describe the whole deployment
 * (every node reports the same), and each query is served by a partial index on the queued or
 * leased rows (migrations 0200, 0450) or by the ledger itself, so a scrape costs one statement per figure.
 */
export function registerStoreMetrics(meter: Meter, db: Database): void {
  // The three queue gauges of one scrape share one read.
  let last: { at: number; rows: ReturnType<typeof readQueues> } | undefined;
  const queueRows = () => {
    if (last === undefined || performance.now() - last.at > 1_000) last = { at: performance.now(), rows: readQueues() };
    return last.rows;
  };
  const readQueues = async () =>
    Promise.all(
      QUEUES.map(async ([queue, t]) => {
        const r = await db.query<{ depth: string; oldest: number | null; running: string }>(
          `SELECT (SELECT count(*) FROM ${t.table} WHERE status = '${t.machine.queued}') AS depth,
                  (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM ${t.table} WHERE status = '${t.machine.queued}') AS oldest,
                  (SELECT count(*) FROM ${t.table} WHERE status IN (${list(t.machine.leased)})) AS running`,
        );
        const row = r.rows[0];
        return { queue, depth: Number(row?.depth ?? 0), oldest: Math.max(0, Number(row?.oldest ?? 0)), running: Number(row?.running ?? 0) };
      }),
    );
  meter.collect('qrail_queue_depth', async () => (await queueRows()).map((q) => [{ queue: q.queue }, q.depth] as const));
  meter.collect('qrail_queue_oldest_age_seconds', async () => (await queueRows()).map((q) => [{ queue: q.queue }, q.oldest] as const));
  meter.collect('qrail_queue_running', async () => (await queueRows()).map((q) => [{ queue: q.queue }, q.running] as const));

  meter.collect('qrail_holds_open', async () => {
    const r = await db.query<{ kind: string; n: string }>("SELECT kind, count(*) AS n FROM billing_holds WHERE status = 'pending' GROUP BY kind");
    const by = new Map(r.rows.map((x) => [x.kind, Number(x.n)]));
    return ['job', 'hardware'].map((kind) => [{ kind }, by.get(kind) ?? 0] as const);
  });

  meter.collect('qrail_holds_resolved_total', async () => {
    const r = await db.query<{ kind: string; status: string; n: string }>("SELECT kind, status, count(*) AS n FROM billing_holds WHERE status <> 'pending' GROUP BY kind, status");
    return r.rows.map((x) => [{ kind: x.kind, outcome: x.status }, Number(x.n)] as const);
  });

  // A sum over the ledger: exact and cluster-wide, at the cost of reading it (indexed by nothing smaller).
  meter.collect('qrail_money_moved_micro_usd_total', async () => {
    const r = await db.query<{ kind: string; micros: string }>('SELECT kind, sum(amount_micros)::text AS micros FROM ledger_transfers GROUP BY kind');
    return r.rows.map((x) => [{ kind: x.kind }, Number(x.micros)] as const);
  });

  // Events not yet fanned out to endpoints plus deliveries still to send (both partial indexes, migration 0900).
  meter.collect('qrail_webhook_backlog', async () => {
    const r = await db.query<{ n: string }>("SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') + (SELECT count(*) FROM webhook_events WHERE sequence IS NULL) AS n");
    return [[{}, Number(r.rows[0]?.n ?? 0)]];
  });

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
