import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount, placeHold, releaseHold } from '../helpers/ledger.js';

interface Entry {
  transfer_id: string;
  kind: string;
  amount: string;
  available_change: string;
  held_change: string;
  hold_id: string | null;
  created_at: string;
}

describe('GET /v1/billing/ledger: the account’s transfers, newest first', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterEach(async () => expectLedgerInvariants(app));
  afterAll(async () => app.close());

  const list = async (auth: { authorization: string }, query: string) => {
    const r = await app.inject({ method: 'GET', url: `/v1/billing/ledger${query}`, headers: auth });
    return r;
  };

  it('needs a session', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/billing/ledger' });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toMatchObject({ status: 'error', error: { code: 'UNAUTHENTICATED' } });
  });

  it('lists grants, holds and releases with their signed effect on both balances, pages without gaps, filters by kind', async () => {
    const u = await signUp(app);
    const other = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    await fundAccount(app, other.accountId, 5_000_000n);
    const holds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const h = await app.db.tx((q) =>
        placeHold(q, { accountId: u.accountId, amountMicros: 250_000n, kind: 'job', refId: randomUUID(), description: `job ${i}`, expiresAt: new Date(Date.now() + 3_600_000) }),
      );
      if (h.holdId === null) throw new Error(`hold refused: ${JSON.stringify(h)}`);
      holds.push(h.holdId);
    }
    await app.db.tx((q) => releaseHold(q, { holdId: holds[0]!, reason: 'test' }));

    const all = await list(u.auth, '?limit=100');
    expect(all.statusCode).toBe(200);
    const entries = all.json().data.entries as Entry[];
    // 1 grant + 3 holds + 1 release, none of the other account's.
    expect(entries.map((e) => e.kind)).toEqual(['release', 'hold', 'hold', 'hold', 'grant']);
    expect(all.json().data.next_cursor).toBeNull();
    const grant = entries[4]!;
    expect(grant).toMatchObject({ amount: '10.000000', available_change: '10.000000', held_change: '0.000000', hold_id: null });
    const hold = entries[1]!;
    expect(hold).toMatchObject({ amount: '0.250000', available_change: '-0.250000', held_change: '0.250000' });
    expect(entries[0]).toMatchObject({ kind: 'release', hold_id: holds[0], available_change: '0.250000', held_change: '-0.250000' });
    for (let i = 1; i < entries.length; i++) expect(Date.parse(entries[i - 1]!.created_at)).toBeGreaterThanOrEqual(Date.parse(entries[i]!.created_at));

    // Pages of one: the same transfers in the same order, each once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await list(u.auth, `?limit=1${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expect(r.statusCode).toBe(200);
      const page = r.json().data as { entries: Entry[]; next_cursor: string | null };
      expect(page.entries.length).toBe(1);
      seen.push(page.entries[0]!.transfer_id);
      cursor = page.next_cursor;
    } while (cursor !== null && seen.length < 10);
    expect(seen).toEqual(entries.map((e) => e.transfer_id));

    const onlyHolds = (await list(u.auth, '?kind=hold')).json().data.entries as Entry[];
    expect(onlyHolds.map((e) => e.kind)).toEqual(['hold', 'hold', 'hold']);
    const future = (await list(u.auth, `?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).json().data.entries as Entry[];
    expect(future).toEqual([]);
    const past = (await list(u.auth, `?to=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).json().data.entries as Entry[];
    expect(past).toEqual([]);
  });

  it('refuses a forged cursor and unknown filters with the JSON path', async () => {
    const u = await signUp(app);
    const bad = await list(u.auth, '?cursor=not-a-cursor');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(bad.json().error.details)).toContain('/cursor');
    const kind = await list(u.auth, '?kind=theft');
    expect(kind.statusCode).toBe(400);
    expect(JSON.stringify(kind.json().error.details)).toContain('kind');
  });
});
