// CPU (user+sys) a PostgreSQL backend spends on N job submissions; scratch tool, not committed.
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
const [v, n = '4000'] = process.argv.slice(2);
const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/qrail_h_money_${v}` });
await c.connect();
await c.query('SET synchronous_commit = off');
const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
const cpu = () => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const sql = v === 'base'
  ? `SELECT jobs_submit($1, $2, $3, 'h', 'circuit.analyze', 'product-one', '{"x":1}'::jsonb, 100000, 1050, '{"price":"0.001050"}'::jsonb, now() + interval '1 day', 'agent', 'price 0.001050') AS r`
  : `SELECT jobs_submit($1, $2, $3, 'h', 'circuit.analyze', 'product-one', '{"x":1}'::jsonb, 100000, 1050, '{"price":"0.001050"}'::jsonb, now() + interval '1 day', 'agent') AS r`;
const acct = (i) => `00000000-0000-0000-0000-0000000000${String((i % 24) + 1).padStart(2, '0')}`;
const run = async (k) => { for (let i = 0; i < k; i++) { const r = await c.query({ name: 's', text: sql, values: [randomUUID(), acct(i), randomUUID()] }); if (r.rows[0].r.outcome !== 'created') throw new Error(JSON.stringify(r.rows[0].r)); } };
await run(100);
const t0 = cpu(); const w0 = Date.now();
await run(Number(n));
const t1 = cpu(); const w1 = Date.now();
console.log(`${v}: ${((t1 - t0) * 1000 / Number(n)).toFixed(1)} us CPU, ${((w1 - w0) * 1000 / Number(n)).toFixed(0)} us wall per submission`);
await c.end();
