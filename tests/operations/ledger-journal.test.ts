import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import type { LedgerJournalWorker } from '../../src/billing/ledger-journal.js';
import { sqlJournalQueue } from '../../src/store/billing/ledger-journal-sql.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';

interface Line {
  msg?: string;
  worker?: string;
  transfer_id?: string;
  kind?: string;
  amount_micro_usd?: string;
  account_id?: string | null;
  hold_id?: string | null;
}

describe('the money journal: one log line per ledger transfer, after it committed', () => {
  let app: App;
  const lines: Line[] = [];
  beforeAll(async () => {
    // The journal's own timer is off here: the test drains it when it wants to look.
    app = await buildTestApp({ LOG_LEVEL: 'info', BILLING_LEDGER_JOURNAL_INTERVAL_MS: '0' }, { logDestination: { write: (l: string) => void lines.push(JSON.parse(l) as Line) } });
  });
  afterAll(async () => app?.close());

  const journal = () => app.services.workers.find((w) => w.name === 'ledger-journal') as LedgerJournalWorker;
  const pending = async () => Number((await app.db.query<{ n: string }>('SELECT count(*)::text AS n FROM ledger_journal_pending')).rows[0]!.n);

  it('logs every transfer of a grant, a hold and its release with its ids and amount, once', async () => {
    await journal().drainNow();
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 100 } });
    expect(q.statusCode).toBe(200);
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...u.auth, 'idempotency-key': 'journal-hold' }, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode).toBe(201);
    const jobId = h.json().data.job_id as string;
    const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${jobId}/release`, headers: u.auth, payload: {} });
    expect(rel.statusCode).toBe(200);

    const transfers = (
      await app.db.query<{ id: string; kind: string; amount_micros: string; hold_id: string | null }>(
        'SELECT id, kind, amount_micros::text, hold_id FROM ledger_transfers WHERE account_id = $1 ORDER BY created_at',
        [u.accountId],
      )
    ).rows;
    expect(transfers.map((t) => t.kind)).toEqual(['grant', 'hold', 'release']);
    expect(await pending()).toBeGreaterThanOrEqual(3);

    const logged = await journal().drainNow();
    expect(logged).toBeGreaterThanOrEqual(3);
    expect(await pending()).toBe(0);
    const money = lines.filter((l) => l.msg === 'money moved' && l.account_id === u.accountId);
    expect(new Set(money.map((l) => l.transfer_id))).toEqual(new Set(transfers.map((t) => t.id)));
    expect(money).toHaveLength(transfers.length);
    for (const t of transfers) {
      const l = money.find((m) => m.transfer_id === t.id)!;
      expect(l).toMatchObject({ worker: 'ledger-journal', kind: t.kind, amount_micro_usd: t.amount_micros, hold_id: t.hold_id });
    }
    // Nothing left: a second drain logs nothing again.
    expect(await journal().drainNow()).toBe(0);
    expect(lines.filter((l) => l.msg === 'money moved' && l.account_id === u.accountId)).toHaveLength(3);
    await expectLedgerInvariants(app);
  });

  it('a batch whose logging fails stays queued and is logged by the next drain', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const before = await pending();
    expect(before).toBeGreaterThanOrEqual(1);
    const queue = sqlJournalQueue(app.db);
    await expect(
      queue.drain(100, () => {
        throw new Error('log sink down');
      }),
    ).rejects.toThrow('log sink down');
    expect(await pending()).toBe(before);
    const seen: string[] = [];
    expect(await queue.drain(100, (e) => void seen.push(e.transferId))).toBe(before);
    expect(await pending()).toBe(0);
    const grant = (await app.db.query<{ id: string }>("SELECT id FROM ledger_transfers WHERE account_id = $1 AND kind = 'grant'", [u.accountId])).rows[0]!.id;
    expect(seen).toContain(grant);
  });
});
