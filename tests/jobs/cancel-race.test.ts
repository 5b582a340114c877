/**
 * Cancel against the worker's claim (issue #21 item 1): 50 rounds, each a job that the worker
 * claims while a cancel for it arrives, in varying order. Whatever wins, every job ends exactly
 * once, its money moves once (one capture if it completed, one release if it was canceled), the
 * cancel's answer matches the end (200 → failed / CANCELED, 409 → completed), and the ledger
 * check is clean at the end. On PostgreSQL the two run on separate connections at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities } from './helpers.js';

const ROUNDS = 50;

/** Lets `n` turns of the event loop pass: the race's offset between the two sides (its subject is ordering). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

describe(`cancel vs worker claim, ${ROUNDS} rounds`, () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
  });
  afterAll(async () => app.close());

  it('every job ends exactly once and its money moves once', async () => {
    const a = await newAgent(app, { fundMicros: 10_000_000n });
    const seen: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const r = await submit(app, a, { capability_id: 'test.echo', request: { text: `round ${round}`, sleep_ms: round % 3 }, idempotency_key: key('race'), max_total_price: '0.1' });
      expect(r.statusCode).toBe(202);
      const id = r.json().job_id as string;
      const cancelFirst = round % 2 === 0;
      const offset = round % 7;
      const [answer, step] = await Promise.all([
        (async () => {
          if (!cancelFirst) await turns(offset);
          return app.inject({ method: 'POST', url: `/v1/jobs/${id}/cancel`, headers: a.auth });
        })(),
        (async () => {
          if (cancelFirst) await turns(offset);
          return app.services.jobsWorker.runOnce();
        })(),
      ]);
      const end = await app.db.query<{ status: string; error_code: string | null }>('SELECT status, error_code FROM jobs WHERE id = $1', [id]);
      const job = end.rows[0];
      const outcome = `${answer.statusCode} ${job?.status ?? '?'}${job?.error_code === null ? '' : `/${job?.error_code}`} (worker: ${step?.status ?? 'nothing claimed'})`;
      seen[outcome] = (seen[outcome] ?? 0) + 1;

      // The cancel's answer matches how the job ended.
      if (answer.statusCode === 200) expect(job, outcome).toEqual({ status: 'failed', error_code: 'CANCELED' });
      else {
        expect(answer.statusCode, outcome).toBe(409);
        expect(answer.json().error.code).toBe('JOB_NOT_CANCELABLE');
        expect(job, outcome).toEqual({ status: 'completed', error_code: null });
      }
      // Ended once: one terminal transition.
      const ends = await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM job_transitions WHERE job_id = $1 AND to_status IN ('completed', 'failed')", [id]);
      expect(ends.rows[0]?.n, outcome).toBe(1);
      // Money moved once: the hold, then one capture or one release.
      const moves = await app.db.query<{ kind: string }>('SELECT t.kind FROM ledger_transfers t JOIN billing_holds h ON h.id = t.hold_id WHERE h.ref_id = $1 ORDER BY t.created_at, t.kind', [id]);
      expect(
        moves.rows.map((m) => m.kind),
        outcome,
      ).toEqual(['hold', job?.status === 'completed' ? 'capture' : 'release']);
    }
    // Which side won how often (printed, not asserted: the scheduler decides).
    console.info(`cancel race outcomes: ${JSON.stringify(seen)}`);
    await expectAllInvariants(app);
    const bal = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json();
    expect(bal.held).toBe('0.000000');
  });
});
