/**
 * The lists are index-backed (issue #21 item 2, migration 0600): at LIST_PLAN_JOBS jobs of one
 * account (default 100,000 on PostgreSQL, where the plan matters most; 20,000 on PGlite, where
 * 100,000 takes over a minute to insert — set LIST_PLAN_JOBS=100000 to check it there too) plus
 * other accounts' jobs, every filter of GET /v1/jobs and GET /v1/execute/jobs reads no more rows than
 * the page it returns: an ordered index probe stopped by the LIMIT, no sort, nothing filtered
 * away. The tables have no statistics (as on a fresh database or PGlite, which never analyzes);
 * the statements run with the lists' planner settings (src/store/list-page.ts), as they do in
 * production.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import type { Queryable } from '../../src/store/db.js';
import type { ExecutionListQuery } from '../../src/execution/ports.js';
import type { ListQuery } from '../../src/jobs/ports.js';
import { executionListSql } from '../../src/store/execution/execution-list-sql.js';
import { jobListSql } from '../../src/store/jobs/job-list-sql.js';
import { LIST_PLAN_SETTINGS } from '../../src/store/list-page.js';
import { buildTestApp } from '../helpers/app.js';
import { explain, inRolledBackTx } from '../helpers/plans.js';
import { key, newAgent, submit, withTestCapabilities, type Agent } from './helpers.js';

const N = Number(process.env['LIST_PLAN_JOBS'] ?? (process.env['DATABASE_URL'] === undefined ? 20_000 : 100_000));
const PAGE = 101; // a page of 100 and the row that says whether there is another
/** The history spans 25 days, whatever N (the time filters cut it at 20 days ago). */
const SPREAD_SECONDS = 25 * 86_400;

interface Read {
  readonly returned: number;
  /** Per table read: rows its scans produced over all loops, and rows they threw away. */
  readonly reads: Array<{ node: string; relation: string; rows: number; removed: number }>;
  readonly sorted: boolean;
}

function summary(nodes: Array<Record<string, unknown>>): Read {
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  return {
    returned: num(nodes[0]?.['Actual Rows']),
    reads: nodes
      .filter((n) => typeof n['Relation Name'] === 'string')
      .map((n) => ({
        node: `${String(n['Node Type'])}${typeof n['Index Name'] === 'string' ? ` on ${n['Index Name']}` : ''}`,
        relation: String(n['Relation Name']),
        rows: num(n['Actual Rows']) * Math.max(1, num(n['Actual Loops'])),
        removed: num(n['Rows Removed by Filter']) + num(n['Rows Removed by Index Recheck']),
      })),
    sorted: nodes.some((n) => String(n['Node Type']).includes('Sort')),
  };
}

/** Why a plan reads more than it returns (none: it does not): more rows read than returned, rows filtered away, a sort. */
function problems(name: string, r: Read, minReturned: number): string[] {
  const why = `${name}: ${JSON.stringify(r)}`;
  const bad = [
    ...(r.returned < minReturned ? ['returned too few'] : []),
    ...(r.sorted && r.returned > 1 ? ['sorted'] : []),
    ...r.reads.flatMap((t) => [
      ...(t.rows > r.returned ? [`read ${t.rows} rows of ${t.relation}`] : []),
      ...(t.removed > 0 ? [`filtered ${t.removed} rows of ${t.relation}`] : []),
      ...(/^Index (Only )?Scan/.test(t.node) ? [] : [`${t.node} on ${t.relation}`]),
    ]),
  ];
  return bad.length === 0 ? [] : [`${why} → ${bad.join(', ')}`];
}

/** The cursor position after a page deep in the account's history (5,000 rows in). */
async function deepPosition(q: Queryable, table: 'jobs' | 'execution_jobs', accountId: string): Promise<{ createdAtMicros: bigint; id: string }> {
  const r = await q.query<{ id: string; us: string }>(
    `SELECT id, (extract(epoch from created_at) * 1000000)::bigint::text AS us FROM ${table} WHERE account_id = $1 ORDER BY created_at DESC, id DESC OFFSET 5000 LIMIT 1`,
    [accountId],
  );
  const row = r.rows[0];
  if (row === undefined) throw new Error(`${table} has fewer than 5,001 rows of the account`);
  return { createdAtMicros: BigInt(row.us), id: row.id };
}

describe(`list plans at ${N} jobs`, () => {
  let app: App;
  let a: Agent;
  let idemKey = '';
  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
    a = await newAgent(app, { fundMicros: 1_000_000n });
    idemKey = key('plan');
    const r = await submit(app, a, { capability_id: 'test.echo', request: { text: 'real' }, idempotency_key: idemKey, max_total_price: '0.1', tags: { env: 'prod' } });
    expect(r.statusCode).toBe(202);
  }, 120_000);
  afterAll(async () => app.close());

  it('GET /v1/jobs: each filter is an ordered index probe that stops after the page', async () => {
    const b = await newAgent(app, { fundMicros: 0n });
    const reads = await inRolledBackTx(app, async (q) => {
      for (const setting of LIST_PLAN_SETTINGS) await q.exec(setting);
      // The history, older than the real job: statuses, capabilities and tags spread over it; another account's as many.
      for (const [account, n] of [
        [a.accountId, N],
        [b.accountId, N / 2],
      ] as const) {
        await q.query(
          `INSERT INTO jobs (id, account_id, idempotency_key, request_hash, capability_id, request, max_total_price_micros, quoted_price_micros,
                             reserved_price_micros, quote, status, error_code, submitted_by, tags, created_at)
           SELECT gen_random_uuid(), $1, 'hist-' || g, 'h', (ARRAY['test.echo', 'test.effectful', 'circuit.simulate', 'circuit.analyze'])[1 + g % 4], '{}'::jsonb,
                  0, 0, 0, '{}'::jsonb, CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'queued' END, CASE WHEN g % 10 = 0 THEN 'X' END, 'test',
                  jsonb_build_object('env', CASE WHEN g % 3 = 0 THEN 'prod' ELSE 'dev' END, 'batch', 'b' || (g % 50)),
                  clock_timestamp() - interval '30 days' + g * $3::float8 * interval '1 second'
             FROM generate_series(1, $2::int) g`,
          [account, n, SPREAD_SECONDS / n],
        );
      }
      await q.query(
        `INSERT INTO job_tags (job_id, account_id, key, value, created_at)
         SELECT j.id, j.account_id, t.key, t.value, j.created_at FROM jobs j, jsonb_each_text(j.tags) t WHERE j.idempotency_key LIKE 'hist-%'`,
      );
      const at = BigInt(Date.parse((await q.query<{ t: Date }>("SELECT clock_timestamp() - interval '20 days' AS t")).rows[0]!.t.toISOString())) * 1000n;
      const plan = async (lq: Omit<ListQuery, 'limit'>) => {
        const { sql, params } = jobListSql(a.accountId, { ...lq, limit: PAGE });
        return summary(await explain(q, sql, params, true));
      };
      const first = await plan({});
      const deep = await deepPosition(q, 'jobs', a.accountId);
      return {
        none: first,
        status: await plan({ status: 'failed' }),
        capability: await plan({ capabilityId: 'circuit.analyze' }),
        createdBefore: await plan({ createdBeforeMicros: at }),
        createdBetween: await plan({ createdAfterMicros: at - 86_400_000_000n, createdBeforeMicros: at }),
        cursor: await plan({ before: deep }),
        statusCursor: await plan({ status: 'queued', before: deep }),
        tag: await plan({ tags: [{ key: 'env', value: 'prod' }] }),
        tagBefore: await plan({ tags: [{ key: 'batch', value: 'b7' }], createdBeforeMicros: at }),
        idempotencyKey: await plan({ idempotencyKey: idemKey }),
      };
    });
    expect(Object.entries(reads).flatMap(([name, r]) => problems(name, r, name === 'idempotencyKey' ? 1 : PAGE))).toEqual([]);
  }, 600_000);

  it('GET /v1/execute/jobs: each filter is an ordered index probe that stops after the page', async () => {
    const reads = await inRolledBackTx(app, async (q) => {
      for (const setting of LIST_PLAN_SETTINGS) await q.exec(setting);
      await q.query(
        `INSERT INTO execution_jobs (id, account_id, client_token, request_hash, provider, device, kind, driver, status, shots, seed, circuit, result, error_code, created_at)
         SELECT gen_random_uuid(), $1, 'hist-' || g, 'h', p.provider, p.device, 'simulator', 'simulator', s.status, 10, g, '{}'::jsonb,
                CASE WHEN s.status = 'completed' THEN '{}'::jsonb END, CASE WHEN s.status = 'failed' THEN 'X' END,
                clock_timestamp() - interval '30 days' + g * $3::float8 * interval '1 second'
           FROM generate_series(1, $2::int) g
           CROSS JOIN LATERAL (SELECT CASE WHEN g % 2 = 0 THEN 'provider-one' ELSE 'provider-two' END AS provider,
                                      CASE WHEN g % 2 = 0 THEN 'p1-simulator' ELSE 'p2-local-simulator' END AS device) p
           CROSS JOIN LATERAL (SELECT CASE WHEN g % 5 = 0 THEN 'failed' ELSE 'completed' END AS status) s`,
        [a.accountId, N, SPREAD_SECONDS / N],
      );
      const at = BigInt(Date.parse((await q.query<{ t: Date }>("SELECT clock_timestamp() - interval '20 days' AS t")).rows[0]!.t.toISOString())) * 1000n;
      const plan = async (lq: Omit<ExecutionListQuery, 'limit'>) => {
        const { sql, params } = executionListSql(a.accountId, { ...lq, limit: PAGE });
        return summary(await explain(q, sql, params, true));
      };
      const deep = await deepPosition(q, 'execution_jobs', a.accountId);
      return {
        none: await plan({}),
        provider: await plan({ provider: 'provider-one' }),
        device: await plan({ device: 'p2-local-simulator' }),
        status: await plan({ status: 'failed' }),
        createdBefore: await plan({ createdBeforeMicros: at }),
        cursor: await plan({ before: deep }),
        deviceCursor: await plan({ device: 'p1-simulator', before: deep }),
      };
    });
    expect(Object.entries(reads).flatMap(([name, r]) => problems(name, r, PAGE))).toEqual([]);
  }, 600_000);
});
