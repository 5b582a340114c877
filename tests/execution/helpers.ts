import { expect } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { EXECUTION_QUEUE } from '../../src/store/execution/execution-repository.js';
import { checkTransitions } from '../../src/store/queue/queue-invariants.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';
import { waitFor } from '../helpers/wait-for.js';

// The circuits the execution tests run, shared with the client flow test (typed as the wire format).
export { bell, ghz3 } from '../helpers/circuits.js';

export interface WalletFigures {
  available: string;
  held: string;
  total: string;
}

export async function wallet(app: App, auth: { authorization: string }): Promise<WalletFigures> {
  const r = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: auth });
  expect(r.statusCode).toBe(200);
  const d = r.json().data;
  return { available: d.available, held: d.held, total: d.total };
}

export async function expectWallet(app: App, auth: { authorization: string }, available: string, held: string): Promise<void> {
  const w = await wallet(app, auth);
  expect({ available: w.available, held: w.held }).toEqual({ available, held });
  await expectLedgerInvariants(app);
  await expectExecutionInvariants(app);
}

/**
 * Execution jobs ↔ holds (DESIGN §3 for hardware runs): a completed hardware job has exactly
 * one capture, of its actual cost, at most the hold; a failed or unfinished one has none; a
 * simulator run has no hold and costs nothing; a held job's state matches its hold's; the last
 * stored event is the job's status, and every event is a transition the state machine allows.
 * Returns nothing; fails the test with every violation.
 */
export async function expectExecutionInvariants(app: Pick<App, 'db'>): Promise<void> {
  const problems: string[] = [];
  const jobs = await app.db.query<{
    id: string;
    kind: string;
    status: string;
    hold_status: string | null;
    hold_amount: string | null;
    actual: string | null;
    captures: number;
    captured: string;
    last: string | null;
    error_code: string | null;
  }>(
    `SELECT j.id, j.kind, j.status, j.error_code, h.status AS hold_status, h.amount_micros::text AS hold_amount, j.actual_micros::text AS actual,
            (SELECT count(*)::int FROM ledger_transfers t WHERE t.hold_id = j.hold_id AND t.kind = 'capture') AS captures,
            (SELECT COALESCE(SUM(t.amount_micros), 0)::text FROM ledger_transfers t WHERE t.hold_id = j.hold_id AND t.kind = 'capture') AS captured,
            (SELECT e.to_status FROM execution_job_events e WHERE e.job_id = j.id ORDER BY e.id DESC LIMIT 1) AS last
       FROM execution_jobs j LEFT JOIN billing_holds h ON h.id = j.hold_id`,
  );
  for (const j of jobs.rows) {
    const bad = (why: string) => problems.push(`execution job ${j.id} (${j.kind}, ${j.status}): ${why}`);
    if (j.last !== j.status) bad(`last event is ${j.last ?? 'none'}`);
    if (j.kind === 'simulator') {
      if (j.hold_status !== null) bad('a simulator run has a hold');
      if (j.actual !== null && j.actual !== '0') bad(`a simulator run cost ${j.actual}`);
      continue;
    }
    // A canceled job captured what its run consumed (a remote run the provider finished anyway), or nothing.
    const consumed = j.status === 'failed' && j.error_code === 'CANCELED' && j.actual !== null && j.actual !== '0';
    if (j.status === 'completed' || consumed) {
      if (j.captures !== 1 || j.hold_status !== 'captured') bad(`${j.captures} captures, hold ${j.hold_status ?? 'missing'}`);
      if (j.captured !== j.actual) bad(`captured ${j.captured} but actual cost ${j.actual ?? 'null'}`);
      if (BigInt(j.captured) > BigInt(j.hold_amount ?? '0')) bad(`captured ${j.captured} > held ${j.hold_amount ?? 'null'}`);
    } else {
      if (j.captures !== 0) bad(`${j.captures} captures without completing`);
      if (j.status === 'failed' && (j.hold_status === 'pending' || j.hold_status === 'captured')) bad(`failed with its hold ${j.hold_status}`);
    }
  }
  // A held job for N tasks names the hold of its untaken tasks while any remain (tasks_used < tasks);
  // its first task's run has the held job's id.
  const held = await app.db.query<{ job_id: string; status: string; hold_status: string; run: boolean; tasks_used: number; lapsed: boolean }>(
    `SELECT hj.job_id, hj.status, hj.tasks_used, h.status AS hold_status, EXISTS (SELECT 1 FROM execution_jobs j WHERE j.id = hj.job_id) AS run,
            EXISTS (SELECT 1 FROM execution_jobs j WHERE j.id = hj.job_id AND j.status = 'failed' AND j.error_code = 'HOLD_LAPSED') AS lapsed
       FROM billing_held_jobs hj JOIN billing_holds h ON h.id = hj.hold_id`,
  );
  const want: Record<string, string> = { held: 'pending', released: 'released', expired: 'expired' };
  for (const h of held.rows) {
    if (h.status === 'continued') {
      if (!h.run) problems.push(`held job ${h.job_id} is continued but has no execution job`);
    } else if (h.hold_status !== want[h.status]) problems.push(`held job ${h.job_id} is ${h.status} but its hold is ${h.hold_status}`);
    // A continued job still waiting when its hold expired (a provider outage) ends HOLD_LAPSED, never run.
    if (h.status !== 'continued' && h.run !== h.tasks_used > 0 && !(h.status === 'expired' && h.lapsed))
      problems.push(`held job ${h.job_id} is ${h.status} with ${h.tasks_used} task(s) taken but ${h.run ? 'was' : 'was not'} run`);
  }
  problems.push(...(await checkTransitions(app.db, EXECUTION_QUEUE)));
  expect(problems).toEqual([]);
}

export async function quoteAndHold(app: App, auth: { authorization: string }, device: string, shots: number, extra: Record<string, unknown> = {}) {
  const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { provider: 'provider-two', device, shots } });
  expect(q.statusCode).toBe(200);
  const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: auth, payload: { quote_id: q.json().data.quote_id, ...extra } });
  expect(h.statusCode).toBe(201);
  return { quote: q.json().data, held: h.json().data as { job_id: string; amount: string; hold_id: string; status: string } };
}

/** A hold for `tasks` runs of 100 shots on p2-grid-9 ($0.30 per task + 100 × $0.0009 per shot = $0.39 per task). */
export async function holdGridTasks(app: App, auth: { authorization: string }, tasks: number) {
  const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots: 100, tasks } });
  expect(q.statusCode).toBe(200);
  const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: auth, payload: { quote_id: q.json().data.quote_id } });
  expect(h.statusCode).toBe(201);
  return h.json().data as { job_id: string; hold_id: string; amount: string };
}

/** Runs the execution worker until the job is terminal (parked remote jobs become due after a few ms); the outcomes seen. */
export async function settleExecutionJob(app: App, id: string): Promise<string[]> {
  const outcomes: string[] = [];
  return waitFor(
    async () => {
      outcomes.push(...(await app.services.executionWorker.drain()).map((s) => s?.outcome ?? 'none'));
      const st = (await app.db.query<{ status: string }>('SELECT status FROM execution_jobs WHERE id = $1', [id])).rows[0]?.status;
      return (st === 'completed' || st === 'failed') && outcomes;
    },
    { intervalMs: 5 },
  ).catch(() => {
    throw new Error(`job ${id} did not settle: ${outcomes.join(',')}`);
  });
}
