/**
 * The one queue's SQL (src/queue/queue-worker.ts): claim with FOR UPDATE SKIP LOCKED, lease,
 * heartbeat, attempts, transitions and terminal states, for every table of queued items
 * (`jobs`, `execution_jobs`). Each kind describes its table once (`defineQueueTable`); the
 * statuses in the SQL come from the kind's state machine, and every transition written here is
 * checked against it first.
 *
 * Rules every function keeps: a write that moves an item on names the lease owner and the
 * states it may be in, so a worker whose lease was taken over changes nothing; an item ends in
 * a terminal state once (the caller holds the row lock; terminal states have no way out); an item
 * whose cancel was requested (`cancel_requested_at`, every queue table has it) is not moved on,
 * only ended as its state machine's cancel says.
 */
import type { Heartbeat } from '../../queue/queue-worker.js';
import { assertTransition, type StateMachine } from '../../queue/state-machine.js';
import type { Queryable } from '../db.js';

export interface QueueTableDefinition<S extends string> {
  readonly table: string;
  /** Its append-only transitions: (job_id, from_status, to_status, worker, note, at). */
  readonly events: string;
  readonly machine: StateMachine<S>;
  /** The columns every read of an item returns, over the row alias `a` (`a.*` and any computed ones). */
  readonly columns: (a: string) => string;
  /**
   * SQL over the row `j` before the claim: true when a claim resumes the item instead of running
   * its work (no attempt counted). An item claimed in a leased state after the first always resumes.
   */
  readonly resumes?: string;
  /** More assignments of a claim (`col = expr`). */
  readonly onClaim?: readonly string[];
  /** More assignments when the item reaches a terminal state. */
  readonly onFinish?: readonly string[];
}

export interface QueueTable<S extends string> extends QueueTableDefinition<S> {
  /** The claim ($1 worker, $2 lease in ms): see claimSql. */
  readonly claimSql: string;
}

/** An assignment's value written as SQL (over the row) rather than sent as a parameter. */
export class SqlExpr {
  constructor(readonly sql: string) {}
}

/** Column → value (a parameter) or SqlExpr. Column names are the store's own constants. */
export type Assignments = Readonly<Record<string, unknown>>;

const IDENT = /^[a-z_][a-z0-9_]*$/;

function ident(s: string): string {
  if (!IDENT.test(s)) throw new Error(`not an SQL identifier: ${s}`);
  return s;
}

const literals = (states: readonly string[]): string => states.map((s) => `'${ident(s)}'`).join(', ');

/** `col = $n` for each assignment, numbering parameters after `params`' current length (pushed onto it). */
function assignments(set: Assignments, params: unknown[]): string[] {
  return Object.entries(set).map(([col, v]) => {
    if (v instanceof SqlExpr) return `${ident(col)} = ${v.sql}`;
    params.push(v);
    return `${ident(col)} = $${params.length}`;
  });
}

const leaseFor = (param: string) => `clock_timestamp() + ${param}::int * interval '1 millisecond'`;

/**
 * Two ordered probes, one per partial index, each stopping at its first unlocked row: an item
 * whose lease expired first (oldest lease; work already started, so recovering it is not
 * delayed behind a backlog), else the oldest queued item. With an OR in one WHERE the planner
 * ORs two bitmap scans and sorts every queued item per claim (120 ms a claim at a backlog of
 * 130,000). The claim records the queued → running transition in the same statement and
 * returns the item's hold status (a claim whose hold lapsed is failed by its handler).
 */
export function claimSql<S extends string>(t: QueueTableDefinition<S>): string {
  const m = t.machine;
  const table = ident(t.table);
  const first = ident(m.leased[0]);
  const later = m.leased.slice(1);
  const resumes = [...(later.length > 0 ? [`j.status IN (${literals(later)})`] : []), ...(t.resumes === undefined ? [] : [`(${t.resumes})`])];
  return `WITH expired AS (
     SELECT id, status AS prev FROM ${table}
      WHERE status IN (${literals(m.leased)}) AND lease_expires_at < clock_timestamp()
      ORDER BY lease_expires_at LIMIT 1 FOR UPDATE SKIP LOCKED),
   queued AS (
     SELECT id, status AS prev FROM ${table}
      WHERE status = '${ident(m.queued)}' AND NOT EXISTS (SELECT 1 FROM expired)
      ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED),
   c AS (SELECT id, prev FROM expired UNION ALL SELECT id, prev FROM queued),
   u AS (
     UPDATE ${table} j SET lease_owner = $1, lease_expires_at = ${leaseFor('$2')},
            status = CASE WHEN c.prev = '${ident(m.queued)}' THEN '${first}' ELSE c.prev END,
            attempts = ${resumes.length > 0 ? `CASE WHEN ${resumes.join(' OR ')} THEN j.attempts ELSE j.attempts + 1 END` : 'j.attempts + 1'},
            ${(t.onClaim ?? []).map((a) => `${a}, `).join('')}updated_at = clock_timestamp()
       FROM c WHERE j.id = c.id
     RETURNING j.*, c.prev),
   t AS (
     INSERT INTO ${ident(t.events)} (job_id, from_status, to_status, worker)
     SELECT id, prev, '${first}', $1 FROM u WHERE prev = '${ident(m.queued)}')
   SELECT ${t.columns('u')}, h.status AS hold_status
     FROM u LEFT JOIN billing_holds h ON h.id = u.hold_id`;
}

export function defineQueueTable<S extends string>(d: QueueTableDefinition<S>): QueueTable<S> {
  // A transition the claim writes must be one the machine allows, and so must the note a cancel request records.
  assertTransition(d.machine, d.machine.queued, d.machine.leased[0]);
  for (const s of d.machine.cancel.ask) assertTransition(d.machine, s, s);
  return Object.freeze({ ...d, claimSql: claimSql(d) });
}

export type Claimed<R, S extends string> = R & { readonly prev: S; readonly hold_status: string | null };

/** Claims the next due item for `worker`; undefined when nothing is due. */
export async function claimNext<R, S extends string>(q: Queryable, t: QueueTable<S>, worker: string, leaseMs: number): Promise<Claimed<R, S> | undefined> {
  return (await q.query<Claimed<R, S>>(t.claimSql, [worker, leaseMs])).rows[0];
}

/** Extends the lease while `worker` holds it in a leased state, and says whether a cancel was requested meanwhile. */
export async function heartbeat<S extends string>(q: Queryable, t: QueueTable<S>, id: string, worker: string, leaseMs: number): Promise<Heartbeat> {
  const r = await q.query<{ cancel: boolean }>(
    `UPDATE ${ident(t.table)} SET lease_expires_at = ${leaseFor('$3')}
      WHERE id = $1 AND lease_owner = $2 AND status IN (${literals(t.machine.leased)})
     RETURNING cancel_requested_at IS NOT NULL AS cancel`,
    [id, worker, leaseMs],
  );
  const row = r.rows[0];
  return row === undefined ? 'lost' : row.cancel ? 'cancel' : 'held';
}

/**
 * Records a cancel request on a running item (an `ask` state of its machine; the caller holds the
 * row lock and read its state): its worker stops at its next heartbeat. A parked item (no lease
 * owner: a remote job between polls) is made due at once, so a worker claims it and ends it.
 * False when the item was not in such a state or its cancel was already requested.
 */
export async function requestCancel<S extends string>(q: Queryable, t: QueueTable<S>, id: string): Promise<boolean> {
  const r = await q.query(
    `WITH u AS (
       UPDATE ${ident(t.table)} SET cancel_requested_at = clock_timestamp(), updated_at = clock_timestamp(),
              lease_expires_at = CASE WHEN lease_owner IS NULL THEN clock_timestamp() ELSE lease_expires_at END
        WHERE id = $1 AND status IN (${literals(t.machine.cancel.ask)}) AND cancel_requested_at IS NULL RETURNING id, status)
     INSERT INTO ${ident(t.events)} (job_id, from_status, to_status, note) SELECT id, status, status, 'cancel requested' FROM u RETURNING job_id`,
    [id],
  );
  return r.rows.length > 0;
}

/** Locks the item (inside the caller's transaction). */
export async function lockItem<R, S extends string>(q: Queryable, t: QueueTable<S>, id: string): Promise<R | undefined> {
  return (await q.query<R>(`SELECT ${t.columns('j')} FROM ${ident(t.table)} j WHERE j.id = $1 FOR UPDATE`, [id])).rows[0];
}

/** Locks the item if `worker` still holds its lease (inside the settling transaction); undefined if not. */
export async function lockOwned<R, S extends string>(q: Queryable, t: QueueTable<S>, id: string, worker: string): Promise<R | undefined> {
  const r = await q.query<R>(`SELECT ${t.columns('j')} FROM ${ident(t.table)} j WHERE j.id = $1 AND j.lease_owner = $2 AND j.status IN (${literals(t.machine.leased)}) FOR UPDATE`, [id, worker]);
  return r.rows[0];
}

/**
 * The account's items queued or running (`where`: a further condition over the table's columns),
 * counted under a per-account transaction lock on the table, so that two submissions checking a
 * bound on it in concurrent transactions cannot both pass: the second counts after the first commits.
 */
export async function openItemsOfAccount<S extends string>(q: Queryable, t: QueueTable<S>, accountId: string, where = 'true'): Promise<number> {
  await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${t.table}:${accountId}`]);
  const r = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${ident(t.table)} WHERE account_id = $1 AND status IN ('queued', 'running') AND (${where})`, [accountId]);
  return r.rows[0]!.n;
}

/** Appends a transition the machine allows (`from` null: the item is new). */
export async function recordTransition<S extends string>(q: Queryable, t: QueueTable<S>, id: string, from: S | null, to: S, worker: string | null, note: string | null = null): Promise<void> {
  assertTransition(t.machine, from, to);
  await q.query(`INSERT INTO ${ident(t.events)} (job_id, from_status, to_status, worker, note) VALUES ($1, $2, $3, $4, $5)`, [id, from, to, worker, note]);
}

/**
 * `from` → `to`, both leased, if `worker` holds the lease and no cancel was requested: the lease
 * renewed for `leaseMs`, the transition recorded, in one statement. False when the lease was lost
 * or the item is to be canceled (the caller tells which apart).
 */
export async function advance<S extends string>(q: Queryable, t: QueueTable<S>, id: string, worker: string, from: S, to: S, set: Assignments, leaseMs: number): Promise<boolean> {
  assertTransition(t.machine, from, to);
  if (!t.machine.leased.includes(from) || !t.machine.leased.includes(to)) throw new Error(`${t.machine.name}: advance is for leased states, not ${from} → ${to}`);
  const params: unknown[] = [id, worker, to, from, leaseMs];
  const extra = assignments(set, params);
  const r = await q.query(
    `WITH u AS (
       UPDATE ${ident(t.table)} SET status = $3, ${extra.map((a) => `${a}, `).join('')}lease_expires_at = ${leaseFor('$5')}, updated_at = clock_timestamp()
        WHERE id = $1 AND lease_owner = $2 AND status = $4 AND cancel_requested_at IS NULL RETURNING id)
     INSERT INTO ${ident(t.events)} (job_id, from_status, to_status, worker) SELECT id, $4, $3, $2 FROM u RETURNING job_id`,
    params,
  );
  return r.rows.length > 0;
}

/**
 * The item's terminal state: status, the lease cleared, `set`, the transition. The caller holds
 * the row lock (lockOwned, or lockItem for a worker-less failure) and read `from` under it.
 */
export async function finish<R, S extends string>(q: Queryable, t: QueueTable<S>, id: string, from: S, to: S, worker: string | null, set: Assignments, note: string | null = null): Promise<R> {
  if (!t.machine.terminal.includes(to)) throw new Error(`${t.machine.name}: ${to} is not terminal`);
  assertTransition(t.machine, from, to);
  const params: unknown[] = [id, to];
  const extra = [...(t.onFinish ?? []), ...assignments(set, params)];
  const r = await q.query<R>(
    `UPDATE ${ident(t.table)} j SET status = $2, lease_owner = NULL, lease_expires_at = NULL, ${extra.map((a) => `${a}, `).join('')}updated_at = clock_timestamp()
      WHERE j.id = $1 RETURNING ${t.columns('j')}`,
    params,
  );
  await recordTransition(q, t, id, from, to, worker, note);
  return r.rows[0] as R;
}

/**
 * Takes over one given item whose lease expired in a leased state (its owner died): `worker`
 * holds it now, an attempt is counted. Undefined while the lease is live or the item ended.
 */
export async function takeOver<R, S extends string>(q: Queryable, t: QueueTable<S>, id: string, worker: string, leaseMs: number): Promise<R | undefined> {
  const r = await q.query<R>(
    `UPDATE ${ident(t.table)} j SET lease_owner = $2, lease_expires_at = ${leaseFor('$3')}, attempts = j.attempts + 1, updated_at = clock_timestamp()
      WHERE j.id = $1 AND j.status IN (${literals(t.machine.leased)}) AND j.lease_expires_at < clock_timestamp()
      RETURNING ${t.columns('j')}`,
    [id, worker, leaseMs],
  );
  return r.rows[0];
}

/**
 * Gives the lease up until `afterMs` from now, when the item is due for a claim again (a remote
 * job's next poll, a retry's backoff), with `set`; the note is recorded as a transition to the
 * same state. False when `worker` no longer held the lease.
 */
export async function defer<S extends string>(q: Queryable, t: QueueTable<S>, id: string, worker: string, afterMs: number, set: Assignments, note?: string): Promise<boolean> {
  const params: unknown[] = [id, worker, afterMs];
  const extra = assignments(set, params);
  const r = await q.query<{ status: S }>(
    `UPDATE ${ident(t.table)} SET lease_owner = NULL, lease_expires_at = ${leaseFor('$3')}, ${extra.map((a) => `${a}, `).join('')}updated_at = clock_timestamp()
      WHERE id = $1 AND lease_owner = $2 AND status IN (${literals(t.machine.leased)}) RETURNING status`,
    params,
  );
  const row = r.rows[0];
  if (row === undefined) return false;
  if (note !== undefined) await recordTransition(q, t, id, row.status, row.status, worker, note);
  return true;
}
