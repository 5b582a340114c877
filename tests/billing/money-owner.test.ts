/**
 * Money has one owner (issue 18; docs/billing.md "Where the money rules live"): balances,
 * holds and ledger rows are written only by the ledger's SQL functions (migration 0400), every
 * other path calls them, and no code outside src/store reads or writes billing's tables or
 * reaches the store from src/billing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|js)$/.test(e.name) ? [join(dir, e.name)] : []));
const source = (f: string) => readFileSync(f, 'utf8');

const BILLING_TABLES = /\b(billing_(wallets|holds|held_jobs|hardware_quotes|processor_payments|processor_events|auto_recharge_attempts|sandbox_objects)|ledger_(transfers|entries))\b/;
/** A write of a balance, a hold or the ledger. */
const MONEY_WRITE =
  /\b(INSERT\s+INTO\s+(billing_holds|ledger_transfers|ledger_entries)\b|UPDATE\s+billing_wallets\s+(\w+\s+)?SET\s+(\w+\.)?(available_micros|held_micros)\b|UPDATE\s+billing_holds\s+(\w+\s+)?SET\s+(\w+\.)?(status|captured_micros|released_micros|refunded_micros)\b)/i;

describe('money has one owner', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  it('in the database, only the ledger_* functions move money', async () => {
    const r = await app.db.query<{ name: string; src: string }>(
      `SELECT p.proname AS name, p.prosrc AS src FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`,
    );
    const movers = r.rows
      .filter((f) => MONEY_WRITE.test(f.src))
      .map((f) => f.name)
      .sort();
    expect(movers.length).toBeGreaterThan(0);
    expect(movers.filter((n) => !n.startsWith('ledger_'))).toEqual([]);
    // The job paths call the ledger instead of copying it.
    const body = (name: string) => r.rows.find((f) => f.name === name)?.src ?? '';
    expect(body('jobs_submit')).toContain('ledger_place_hold(');
    expect(body('jobs_complete')).toContain('ledger_capture(');
  });

  it('outside src/store no code names a billing table, and TypeScript never writes one', () => {
    const domain = files(SRC).filter((f) => !relative(SRC, f).startsWith('store/'));
    expect(domain.length).toBeGreaterThan(50);
    expect(domain.filter((f) => BILLING_TABLES.test(source(f).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))).map((f) => relative(SRC, f))).toEqual([]);
    const writers = files(join(SRC, 'store')).filter((f) => f.endsWith('.ts') && MONEY_WRITE.test(source(f)));
    expect(writers.map((f) => relative(SRC, f))).toEqual([]);
  });

  it('src/billing holds no SQL and reaches no store, driver or other domain’s storage', () => {
    const billing = files(join(SRC, 'billing'));
    expect(billing.length).toBeGreaterThan(10);
    const bad = billing.flatMap((f) => {
      const text = source(f);
      const imports = [...text.matchAll(/(?:import|export)[^'"]*from\s+'([^']+)'/g)].map((m) => m[1] as string);
      return [
        ...imports.filter((i) => /(^|\/)store\/|^pg$|pglite|^fastify/.test(i)).map((i) => `${relative(SRC, f)} imports ${i}`),
        ...(/\b(SELECT\s+[\w*]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b/.test(text) ? [`${relative(SRC, f)} contains SQL`] : []),
      ];
    });
    expect(bad).toEqual([]);
  });
});
