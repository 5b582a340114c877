// CPU a backend spends on N jobs_complete calls; scratch tool, not committed.
import pg from 'pg';
import { readFileSync } from 'node:fs';
const [v, n = '2000'] = process.argv.slice(2);
const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/qrail_h_money_${v}` });
await c.connect();
await c.query('SET synchronous_commit = off');
const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
const cpu = () => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const ids = (await c.query(`WITH u AS (UPDATE jobs SET status = 'result_saved', lease_owner = 'w', result = '{}'::jsonb WHERE id IN (SELECT id FROM jobs WHERE status = 'queued' LIMIT $1) RETURNING id) SELECT id FROM u`, [Number(n) + 100])).rows.map((r) => r.id);
const run = async (list) => { for (const id of list) { const r = await c.query({ name: 'c', text: 'SELECT jobs_complete($1, $2) AS r', values: [id, 'w'] }); if (r.rows[0].r.outcome !== 'completed') throw new Error(JSON.stringify(r.rows[0].r)); } };
await run(ids.slice(0, 100));
const t0 = cpu();
await run(ids.slice(100));
const t1 = cpu();
console.log(`${v}: ${((t1 - t0) * 1000 / (ids.length - 100)).toFixed(1)} us CPU per completion`);
await c.end();
