/**
 * npm run bench:org-budgets — what organizations add to placing a hold (issue #39; migrations
 * 1810 and 1811): holds/s of `ledger_place_hold` through the ledger's TypeScript call, each hold
 * its own transaction, BENCH_ORG_CONCURRENCY in flight, in four phases run interleaved over
 * BENCH_ORG_ROUNDS rounds (rotating which goes first) on the same database:
 *   baseline        a personal account, no submitter: the path every hold took before 1810
 *                   (fast path; the audit trigger's one lookup finds a personal account).
 *   personal+by     the same account, the person as submitter: the member's limits looked up.
 *   team credential a team organization, a member's credential as submitter, no member limit:
 *                   the credential's creator and their limits looked up, the audit event written.
 *   team limited    a team organization, a member with daily and monthly limits: the slow path
 *                   (wallet lock, the organization's and the member's windows summed) and the event.
 * Each phase's ratio is its holds/s over the baseline's, in the same run. PGlite in memory by
 * default; DATABASE_URL runs it on PostgreSQL in a scratch schema (dropped at the end).
 * Last line: one JSON object.
 */
import { randomUUID } from 'node:crypto';
import { migrate } from '../src/store/migrate.js';
import { openDatabase } from '../src/store/open-database.js';
import { grantCredit, placeHold } from '../src/store/billing/ledger-sql.js';
import type { Database } from '../src/store/db.js';

const HOLDS = Number(process.env['BENCH_ORG_HOLDS'] ?? 400);
const CONCURRENCY = Number(process.env['BENCH_ORG_CONCURRENCY'] ?? 8);
const ROUNDS = Number(process.env['BENCH_ORG_ROUNDS'] ?? 3);
const DATABASE_URL = process.env['DATABASE_URL'];

type Phase = 'baseline' | 'personalBy' | 'teamCredential' | 'teamLimited';
const PHASES: Phase[] = ['baseline', 'personalBy', 'teamCredential', 'teamLimited'];

async function setup(db: Database) {
  const person = randomUUID();
  const personal = randomUUID();
  const team = randomUUID();
  const limitedTeam = randomUUID();
  const credential = randomUUID();
  await db.tx(async (q) => {
    await q.query('INSERT INTO accounts (id) VALUES ($1)', [personal]);
    await q.query("INSERT INTO users (id, account_id, email, password_hash) VALUES ($1, $2, $3, 'x')", [person, personal, `${person}@bench.invalid`]);
    await q.query("INSERT INTO org_members (account_id, user_id, role) VALUES ($1, $2, 'owner')", [personal, person]);
    await q.query("INSERT INTO accounts (id, name, personal) VALUES ($1, 'bench', false)", [team]);
    await q.query("INSERT INTO org_members (account_id, user_id, role) VALUES ($1, $2, 'owner')", [team, person]);
    await q.query("INSERT INTO agent_credentials (id, account_id, created_by, name, scopes, secret_hash, secret_hint) VALUES ($1, $2, $3, 'bench', '{}', $4, 'x')", [
      credential,
      team,
      person,
      randomUUID(),
    ]);
    // A second team whose member has limits high enough never to refuse: every hold takes the slow path.
    await q.query("INSERT INTO accounts (id, name, personal) VALUES ($1, 'bench limited', false)", [limitedTeam]);
    await q.query("INSERT INTO org_members (account_id, user_id, role, daily_limit_micros, monthly_limit_micros) VALUES ($1, $2, 'developer', 1000000000000, 1000000000000)", [limitedTeam, person]);
  });
  for (const a of [personal, team, limitedTeam]) await db.tx((q) => grantCredit(q, { accountId: a, amountMicros: 1_000_000_000_000n, reason: 'bench' }));
  return {
    baseline: { accountId: personal, by: null },
    personalBy: { accountId: personal, by: `user:${person}` },
    teamCredential: { accountId: team, by: `credential:${credential}` },
    teamLimited: { accountId: limitedTeam, by: `user:${person}` },
  } satisfies Record<Phase, { accountId: string; by: string | null }>;
}

async function phase(db: Database, target: { accountId: string; by: string | null }): Promise<number> {
  let next = 0;
  const expiresAt = new Date(Date.now() + 3_600_000);
  const lane = async () => {
    while (next < HOLDS) {
      next++;
      await db.tx((q) => placeHold(q, { accountId: target.accountId, amountMicros: 1_000n, kind: 'job', refId: randomUUID(), description: 'bench', expiresAt, submittedBy: target.by }));
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return HOLDS / ((performance.now() - t0) / 1000);
}

async function main() {
  const schema = `bench_org_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const db = await openDatabase(DATABASE_URL === undefined ? { databaseUrl: undefined, dataDir: 'memory://' } : { databaseUrl: DATABASE_URL, dataDir: 'memory://', schema, poolSize: CONCURRENCY + 2 });
  try {
    await migrate(db);
    const targets = await setup(db);
    const rates: Record<Phase, number[]> = { baseline: [], personalBy: [], teamCredential: [], teamLimited: [] };
    // Warm-up: every phase once (plans, caches), not counted.
    for (const p of PHASES) await phase(db, targets[p]);
    for (let round = 0; round < ROUNDS; round++) {
      const order = PHASES.map((_, i) => PHASES[(i + round) % PHASES.length] as Phase);
      for (const p of order) rates[p].push(await phase(db, targets[p]));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const base = mean(rates.baseline);
    const driver = DATABASE_URL === undefined ? 'pglite' : 'pg';
    process.stdout.write(`org-budgets on ${driver}: ${HOLDS} holds × ${ROUNDS} rounds per phase, ${CONCURRENCY} in flight\n`);
    process.stdout.write('phase            holds/s   vs baseline\n');
    for (const p of PHASES) process.stdout.write(`${p.padEnd(16)} ${mean(rates[p]).toFixed(0).padStart(7)}   ${(mean(rates[p]) / base).toFixed(3)}\n`);
    const audit = await db.query<{ n: string }>("SELECT count(*)::text AS n FROM org_audit_events WHERE action = 'money.hold'");
    process.stdout.write(
      `${JSON.stringify({
        bench: 'org-budgets',
        driver,
        baseline_holds_per_s: Number(base.toFixed(1)),
        personal_by_vs_baseline: Number((mean(rates.personalBy) / base).toFixed(3)),
        team_credential_vs_baseline: Number((mean(rates.teamCredential) / base).toFixed(3)),
        team_limited_vs_baseline: Number((mean(rates.teamLimited) / base).toFixed(3)),
        audit_events: Number(audit.rows[0]?.n ?? 0),
      })}\n`,
    );
  } finally {
    if (DATABASE_URL !== undefined) await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.close();
  }
}

await main();
