import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp, type BuildAppOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { App } from '../../src/http/app-types.js';

/**
 * Builds the real app for a test: in-memory PGlite by default, or — when DATABASE_URL
 * is set (CI runs the suite both ways) — a fresh schema on that PostgreSQL, dropped on close.
 */
export async function buildTestApp(env: Record<string, string> = {}, opts: Pick<BuildAppOptions, 'compute' | 'logDestination'> = {}): Promise<App> {
  const databaseUrl = process.env['DATABASE_URL'];
  const path = process.env['PATH'];
  const config = loadConfig({
    // As a real process hands over its whole environment: child programs (espeak-ng) are found on PATH.
    ...(path === undefined ? {} : { PATH: path }),
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'silent',
    SESSION_CACHE_MS: '0',
    PUBLIC_BASE_URL: 'http://qrail.test',
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    ...env,
  });
  const schema = databaseUrl === undefined ? undefined : `t_${randomBytes(6).toString('hex')}`;
  const app = await buildApp({ config, ...opts, ...(schema === undefined ? {} : { schema }), logger: false });
  if (schema !== undefined && databaseUrl !== undefined) {
    app.addHook('onClose', async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        // A schema's last background statement can still hold a lock as it is dropped; PostgreSQL
        // then picks one side as a deadlock victim (40P01), and the drop is simply tried again.
        for (let attempt = 1; ; attempt += 1) {
          try {
            await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
            break;
          } catch (err) {
            if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
          }
        }
      } finally {
        await c.end();
      }
    });
  }
  return app;
}

let counter = 0;
export function uniqueEmail(tag = 'user'): string {
  counter += 1;
  return `${tag}.${process.pid}.${counter}.${randomBytes(3).toString('hex')}@example.com`;
}

export const PASSWORD = 'correct horse battery';

/** Registers a user and logs in; returns the bearer token and ids. */
export async function signUp(app: App, email = uniqueEmail()): Promise<{ token: string; email: string; userId: string; accountId: string; auth: { authorization: string } }> {
  const reg = await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password: PASSWORD } });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.statusCode} ${reg.body}`);
  const login = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  const d = login.json().data;
  return { token: d.token, email, userId: d.user.user_id, accountId: d.user.account_id, auth: { authorization: `Bearer ${d.token}` } };
}

/** Verifies a signed-up user's email with the link of the verification mail in the outbox. */
export async function verifyEmail(app: App, user: { userId: string }): Promise<void> {
  const r = await app.db.query<{ text_body: string }>(`SELECT text_body FROM mail_outbox WHERE user_id = $1 AND template = 'verify_email' ORDER BY created_at DESC LIMIT 1`, [user.userId]);
  const token = /token=(qrv_[A-Za-z0-9_-]+)/.exec(r.rows[0]?.text_body ?? '')?.[1];
  if (token === undefined) throw new Error(`no verification mail for ${user.userId}`);
  const v = await app.inject({ method: 'GET', url: `/v1/auth/email/verify?token=${token}` });
  if (v.statusCode !== 200) throw new Error(`verification failed: ${v.statusCode} ${v.body}`);
}

/** Creates a team organization as the user whose headers are given; returns its id (throws unless 201). */
export async function createOrg(app: App, headers: Record<string, string>, name: string): Promise<string> {
  const r = await app.inject({ method: 'POST', url: '/v1/orgs', headers, payload: { name } });
  if (r.statusCode !== 201) throw new Error(`creating organization ${name} failed: ${r.statusCode} ${r.body}`);
  return r.json().data.org_id as string;
}

/** The real app listening on a free port of 127.0.0.1, its background workers running as in a deployment. */
export async function buildLiveApp(env: Record<string, string> = {}): Promise<{ app: App; url: string }> {
  const app = await buildTestApp(env);
  for (const w of app.services.workers) w.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { app, url: `http://127.0.0.1:${address.port}` };
}
