import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { bell, expectExecutionInvariants, quoteAndHold, wallet } from './helpers.js';

const micros = (usd: string): bigint => BigInt(usd.replace('.', ''));

/**
 * Release and continue of the same held job at the same moment (spec: a hold's funds move
 * exactly once). Both paths lock the wallet row, then the held job row, then the hold, so
 * on PostgreSQL neither deadlocks the other: exactly one wins and the other answers a 409
 * with a stable code. The release is started at a different offset each round so that it
 * lands before, inside and after the continuation's transaction.
 */
describe('release racing continue on the same held job', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('exactly one wins every round; never a 5xx; funds released once or captured once', async () => {
    const u = await signUp(app);
    const funded = 50_000_000n;
    await fundAccount(app, u.accountId, funded);
    const rounds = 24;
    let continued = 0n;
    const winners = { release: 0, continue: 0 };
    for (let i = 0; i < rounds; i++) {
      const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 10);
      const amount = micros(held.amount);
      const before = await wallet(app, u.auth);
      const cont = app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: `race-${i}`, seed: 1 } });
      // The release starts 0, 2, 4 … 46 ms after the continuation: a continuation spends
      // about 20–40 ms (translation, verification) before its transaction, so the sweep
      // covers release-first, both transactions overlapping, and continuation-first.
      const wait = 2 * i;
      const rel = (wait === 0 ? Promise.resolve() : new Promise((r) => setTimeout(r, wait))).then(() =>
        app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held.job_id}/release`, headers: u.auth }),
      );
      const [c, r] = await Promise.all([cont, rel]);
      expect(c.statusCode, c.body).toBeLessThan(500);
      expect(r.statusCode, r.body).toBeLessThan(500);
      const contWon = c.statusCode === 202;
      const relWon = r.statusCode === 200;
      expect(contWon !== relWon, `round ${i}: continue ${c.statusCode} ${c.body} / release ${r.statusCode} ${r.body}`).toBe(true);
      const after = await wallet(app, u.auth);
      if (contWon) {
        winners.continue++;
        continued += amount;
        expect(r.statusCode).toBe(409);
        expect(r.json().error).toMatchObject({ code: 'HOLD_NOT_PENDING', details: { status: 'continued', job_id: held.job_id } });
        // The funds stay held for the run.
        expect(after).toEqual(before);
      } else {
        winners.release++;
        expect(c.statusCode).toBe(409);
        expect(c.json().error).toMatchObject({ code: 'EXECUTION_HELD_JOB_NOT_CONTINUABLE', details: { status: 'released' } });
        expect(r.json().data).toMatchObject({ status: 'released', released: held.amount, already_released: false });
        expect(micros(after.available)).toBe(micros(before.available) + amount);
        expect(micros(after.held)).toBe(micros(before.held) - amount);
      }
      await expectLedgerInvariants(app);
      await expectExecutionInvariants(app);
    }
    expect(winners.release + winners.continue).toBe(rounds);

    // Every continued job runs and is captured once; every released hold moved back once.
    await app.services.executionWorker.drain();
    const w = await wallet(app, u.auth);
    expect(micros(w.held)).toBe(0n);
    expect(micros(w.available)).toBe(funded - continued);
    const moves = await app.db.query<{ hold_id: string; releases: number; captures: number; job_status: string | null; held_status: string }>(
      `SELECT h.id AS hold_id,
              (SELECT count(*)::int FROM ledger_transfers t WHERE t.hold_id = h.id AND t.kind IN ('release', 'expire')) AS releases,
              (SELECT count(*)::int FROM ledger_transfers t WHERE t.hold_id = h.id AND t.kind = 'capture') AS captures,
              (SELECT j.status FROM execution_jobs j WHERE j.id = hj.job_id) AS job_status, hj.status AS held_status
         FROM billing_held_jobs hj JOIN billing_holds h ON h.id = hj.hold_id WHERE hj.account_id = $1`,
      [u.accountId],
    );
    expect(moves.rows).toHaveLength(rounds);
    for (const m of moves.rows) {
      if (m.held_status === 'continued') expect(m).toMatchObject({ job_status: 'completed', captures: 1, releases: 0 });
      else expect(m).toMatchObject({ held_status: 'released', job_status: null, captures: 0, releases: 1 });
    }
    await expectLedgerInvariants(app);
    await expectExecutionInvariants(app);
  });
});
