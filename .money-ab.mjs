// Interleaved CPU comparison (backend user+sys per call) of base vs new: jobs_submit and jobs_complete. Scratch tool.
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
const rounds = Number(process.argv[2] ?? 10), per = Number(process.argv[3] ?? 600);
const mk = async (v) => {
  const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/qrail_h_money_${v}` });
  await c.connect(); await c.query('SET synchronous_commit = off');
  const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  return { v, c, cpu: () => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; } };
};
const acct = (i) => `00000000-0000-0000-0000-0000000000${String((i % 24) + 1).padStart(2, '0')}`;
const submitSql = (v) => v === 'base'
  ? `SELECT jobs_submit($1, $2, $3, 'h', 'circuit.analyze', 'product-one', '{"x":1}'::jsonb, 100000, 1050, '{"price":"0.001050"}'::jsonb, now() + interval '1 day', 'agent', 'price 0.001050') AS r`
  : `SELECT jobs_submit($1, $2, $3, 'h', 'circuit.analyze', 'product-one', '{"x":1}'::jsonb, 100000, 1050, '{"price":"0.001050"}'::jsonb, now() + interval '1 day', 'agent') AS r`;
const submit = async (d, k) => { const ids = []; for (let i = 0; i < k; i++) { const id = randomUUID(); const r = await d.c.query({ name: 's', text: submitSql(d.v), values: [id, acct(i), randomUUID()] }); if (r.rows[0].r.outcome !== 'created') throw new Error(JSON.stringify(r.rows[0].r)); ids.push(id); } return ids; };
const complete = async (d, ids) => { await d.c.query(`UPDATE jobs SET status = 'result_saved', lease_owner = 'w', result = '{}'::jsonb WHERE id = ANY($1::uuid[])`, [ids]); const t0 = d.cpu(); for (const id of ids) { const r = await d.c.query({ name: 'c', text: 'SELECT jobs_complete($1, $2) AS r', values: [id, 'w'] }); if (r.rows[0].r.outcome !== 'completed') throw new Error(JSON.stringify(r.rows[0].r)); } return d.cpu() - t0; };
const ds = [await mk('base'), await mk('new')];
for (const d of ds) await complete(d, await submit(d, 100));
const res = { base: { s: [], c: [] }, new: { s: [], c: [] } };
for (let r = 0; r < rounds; r++) for (const d of (r % 2 ? ds : [...ds].reverse())) {
  const t0 = d.cpu(); const ids = await submit(d, per); res[d.v].s.push((d.cpu() - t0) * 1000 / per);
  res[d.v].c.push((await complete(d, ids)) * 1000 / per);
}
const st = (a) => { const b = [...a].sort((x, y) => x - y); return `min ${b[0].toFixed(0)} med ${b[b.length >> 1].toFixed(0)}`; };
for (const v of ['base', 'new']) console.log(`${v}: submit us CPU ${st(res[v].s)} | complete us CPU ${st(res[v].c)}`);
for (const d of ds) await d.c.end();
