import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { checkJobInvariants } from '../../src/store/jobs/jobs-invariants.js';
import { CLAIM_JOB_SQL } from '../../src/store/jobs/jobs-repository.js';
import { buildTestApp } from '../helpers/app.js';
import { explain, inRolledBackTx } from '../helpers/plans.js';
import { expectAllInvariants, key, newAgent, withTestCapabilities, type Agent } from './helpers.js';

describe('Account Jobs queries stay O(1) per job as the history grows', () => {
  let app: App;
  let a: Agent;
  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
    a = await newAgent(app, { fundMicros: 1_000_000_000n });
    for (let i = 0; i < 3; i++) {
      await app.services.jobs.submit(
        { accountId: a.accountId, subject: `credential:${a.credentialId}` },
        { capability_id: 'test.echo', request: { text: 'hello' }, idempotency_key: key('backlog'), max_total_price: '0.1' },
      );
    }
  });
  afterAll(async () => app.close());

  it('a claim reads one queued job, not the whole backlog', async () => {
    const BACKLOG = 5000;
    const nodes = await inRolledBackTx(app, async (q) => {
      // A backlog (rolled back with the claim): queued jobs older than the three above.
      await q.query(
        `INSERT INTO jobs (id, account_id, idempotency_key, request_hash, capability_id, request, max_total_price_micros,
                           quoted_price_micros, reserved_price_micros, quote, status, submitted_by, created_at)
         SELECT gen_random_uuid(), $1, 'backlog-' || g, 'h', 'test.echo', '{}'::jsonb, 0, 0, 0, '{}'::jsonb, 'queued', 'test',
                clock_timestamp() - interval '1 day' + g * interval '1 millisecond'
           FROM generate_series(1, $2::int) g`,
        [a.accountId, BACKLOG],
      );
      return explain(q, CLAIM_JOB_SQL, ['plan-test', 60_000], true);
    });
    const onJobs = nodes.filter((n) => n['Relation Name'] === 'jobs' && String(n['Node Type']).includes('Scan'));
    expect(onJobs.length).toBeGreaterThan(0);
    // Rows each scan of jobs produced per loop: the oldest queued job, or nothing; no sort of the backlog.
    for (const n of onJobs) expect(Number(n['Actual Rows']), JSON.stringify(n).slice(0, 200)).toBeLessThanOrEqual(1);
    expect(nodes.some((n) => n['Node Type'] === 'Sort')).toBe(false);
    const claimed = nodes.find((n) => n['Node Type'] === 'ModifyTable' && n['Relation Name'] === 'jobs');
    expect(Number(claimed?.['Actual Rows'])).toBe(1);
  });

  it('an idempotency key is found through its own primary key on a table without statistics', async () => {
    // The claim's lookup as the function runs it (idempotency_lookup, called by jobs_submit): a
    // generic plan, cached by a pooled connection for its lifetime, made while the tables have no
    // statistics (a new database, PGlite, autovacuum off). On jobs this tied with
    // jobs_account_list_idx and was filtered (migration 0205).
    const source = (await app.db.query<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'idempotency_lookup'")).rows[0]?.src ?? '';
    expect(source).toContain('SELECT * INTO k FROM idempotency_keys x WHERE x.owner = p_owner AND x.scope = p_scope AND x.key_hash = p_key_hash');
    const asQuery = 'SELECT * FROM idempotency_keys x WHERE x.owner = $1::text AND x.scope = $2::text AND x.key_hash = $3::text';
    const stats = await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stats WHERE tablename IN ('jobs', 'idempotency_keys')");
    expect(stats.rows[0]?.n).toBe(0);
    const nodes = await inRolledBackTx(app, async (q) => {
      await q.exec('SET LOCAL plan_cache_mode = force_generic_plan');
      return explain(q, asQuery, [a.accountId, 'jobs', 'no-such-key'], false);
    });
    const scans = nodes.filter((n) => String(n['Node Type']).includes('Scan'));
    expect(scans.map((n) => n['Index Name'])).toEqual(['idempotency_keys_pkey']);
    // The list filter by key goes the same way: one key row, then the job by its primary key.
    const list = await app.inject({ method: 'GET', url: `/v1/jobs?idempotency_key=no-such-key`, headers: a.auth });
    expect(list.json().jobs).toEqual([]);
  });

  it('the invariants notice a job without its key row', async () => {
    const problems = await inRolledBackTx(app, async (q) => {
      await q.query("DELETE FROM idempotency_keys WHERE scope = 'jobs' AND ref = (SELECT id FROM jobs WHERE account_id = $1 LIMIT 1)", [a.accountId]);
      return checkJobInvariants(q);
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/no key row/);
    await expectAllInvariants(app);
  });
});
