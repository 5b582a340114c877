import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { base32Decode } from '../../src/auth/base32.js';
import { totp } from '../../src/auth/totp.js';
import { buildLiveApp, PASSWORD, uniqueEmail } from '../helpers/app.js';

/**
 * The real `bin/qrail.js` against a live app on a listening port (workers running, as in a
 * deployment), through the quick start of README.md: login → circuits optimize → run → topup
 * (sandbox) → credentials → jobs submit → wait → receipt → balance. Each spawn pays the tsx
 * start-up, so the steps share one process per command and the file keeps them few.
 */

const BIN = new URL('../../bin/qrail.js', import.meta.url).pathname;
const EXAMPLES = new URL('../../examples/', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'qrail-cli-flow-'));
const configFile = join(dir, 'home', 'qrail', 'config.json');
let url = '';

function qrail(args: string[], stdin?: string, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  // Only what the client commands read: the service's own settings must not matter to them.
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', QRAIL_URL: url, QRAIL_CONFIG: configFile, ...extraEnv };
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd: dir });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.stdin.end(stdin ?? '');
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

/** A command that must succeed; its output in the failure message otherwise. */
async function ok(args: string[], stdin?: string): Promise<{ out: string; err: string }> {
  const r = await qrail(args, stdin);
  if (r.code !== 0) throw new Error(`qrail ${args.join(' ')} exited ${r.code}\nstdout: ${r.out}\nstderr: ${r.err}`);
  return r;
}

describe('qrail as a client of a running service (the real binary)', { timeout: 120_000 }, () => {
  let app: App;
  const email = uniqueEmail('cli');

  beforeAll(async () => {
    ({ app, url } = await buildLiveApp({ JOBS_POLL_MS: '20' }));
    const reg = await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password: PASSWORD } });
    expect(reg.statusCode).toBe(201);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports an API validation error with exit 1, each problem at its JSON path, as text and as JSON', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        schema: '0.2',
        num_qubits: 2,
        gates: [
          { op: 'hadamard', qubits: [0] },
          { op: 'cx', qubits: [0, 2] },
        ],
      }),
    );
    const [text, json] = await Promise.all([qrail(['circuits', 'optimize', bad]), qrail(['circuits', 'analyze', bad, '--json'])]);
    expect(text.code).toBe(1);
    expect(text.out).toBe('');
    expect(text.err).toMatch(/^error CIRCUIT_INVALID: .*\(HTTP 400, request_id [^)]+\)\n/);
    expect(text.err).toMatch(/^ {2}\/circuit\/gates\/0\/op {2}UNKNOWN_GATE {2}unknown gate 'hadamard'/m);
    expect(text.err).toMatch(/^ {2}\/circuit\/gates\/1\/qubits\/1 {2}QUBIT_OUT_OF_RANGE/m);
    expect(json.code).toBe(1);
    expect(json.out).toBe('');
    const e = JSON.parse(json.err).error;
    expect(e).toMatchObject({ code: 'CIRCUIT_INVALID', status: 400 });
    expect(e.request_id).toMatch(/.+/);
    expect(e.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['/circuit/gates/0/op', '/circuit/gates/1/qubits/1']));
  });

  it('login → optimize → run → topup → credential → jobs submit → wait (receipt) → balance', async () => {
    const login = await ok(['login', '--email', email, '--password-stdin', '--json'], `${PASSWORD}\n`);
    expect(JSON.parse(login.out)).toMatchObject({ kind: 'session', email, url });
    // The config file holds secrets: owner-only, and nothing else can read the session.
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'home', 'qrail')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toMatchObject({ version: 1, current: url, services: { [url]: { session: { email } } } });

    const opt = await ok(['circuits', 'optimize', join(EXAMPLES, 'optimizable.json'), '--profile', 'balanced', '--out', 'opt.qasm']);
    expect(opt.out).toMatch(/gates +13 → 4/);
    expect(opt.out).toMatch(/proof: verified by /);
    expect(readFileSync(join(dir, 'opt.qasm'), 'utf8')).toMatch(/^OPENQASM 3\.0;/);
    // --async: queued as an optimize job, run by the live app's worker, waited for; the same answer.
    const optAsync = await ok(['circuits', 'optimize', join(EXAMPLES, 'optimizable.json'), '--profile', 'balanced', '--async']);
    expect(optAsync.out).toMatch(/gates +13 → 4/);
    expect(optAsync.out).toMatch(/proof: verified by /);

    const run = await ok(['run', join(EXAMPLES, 'bell.qasm'), '--shots', '1000', '--seed', '7']);
    expect(run.out).toMatch(/^run \S+ on provider-one\/p1-simulator \(simulator\): completed/);
    expect(run.out).toContain('1000 shots, seed 7; bit order: ');
    expect(run.out).toContain('clbit 0 rightmost');
    const bars = [...run.out.matchAll(/^ {2}(00|11) {2}█+\S* +(\d+) +[\d.]+%$/gm)];
    expect(new Set(bars.map((m) => m[1]))).toEqual(new Set(['00', '11']));
    expect(bars.reduce((s, m) => s + Number(m[2]), 0)).toBe(1000);

    const topup = await ok(['topup', '5']);
    expect(topup.out).toMatch(/^credited 5\.000000 USD \(payment \S+\); available now 5\.000000 USD\n$/);

    const cred = await ok(['credentials', 'create', '--name', 'cli agent', '--login']);
    expect(cred.out).toMatch(/^created machine credential \S+ \(jobs:read jobs:write\) and saved it/);

    const submitted = await ok(['jobs', 'submit', 'circuit.simulate', join(EXAMPLES, 'bell.qasm'), '--shots', '1000', '--seed', '11', '--max-price', '0.01', '--json']);
    const job = JSON.parse(submitted.out);
    expect(job).toMatchObject({ capability_id: 'circuit.simulate', quoted_price: '0.000110' });
    expect(job.idempotency_key).toMatch(/^cli-/);

    const waited = await ok(['jobs', 'wait', job.job_id]);
    expect(waited.err).toMatch(new RegExp(`^waiting for job ${job.job_id}: \\w+ \\(\\d+\\.\\d s\\)$`, 'm'));
    expect(waited.out).toMatch(new RegExp(`^job ${job.job_id} {2}circuit\\.simulate {2}completed`));
    expect(waited.out).toContain('bit order: clbit 0 rightmost');
    expect(waited.out).toMatch(/^receipt rcpt_\S+: captured 0\.000110 USD, released 0\.000000 USD of 0\.000110 reserved; balance after 4\.999890 USD$/m);

    const balance = await ok(['balance', '--json']);
    expect(JSON.parse(balance.out)).toMatchObject({ currency: 'USD', available: '4.999890', held: '0.000000' });

    // Filtered lists; a cancel after the job completed is refused and changes nothing.
    const listed = await ok(['jobs', 'list', '--status', 'completed', '--capability', 'circuit.simulate', '--json']);
    expect(JSON.parse(listed.out)).toMatchObject({ jobs: [{ job_id: job.job_id }], has_more: false });
    const late = await qrail(['jobs', 'cancel', job.job_id]);
    expect(late.code).toBe(1);
    expect(late.err).toMatch(/^error JOB_NOT_CANCELABLE: /);

    const logout = await ok(['logout']);
    expect(logout.out).toBe(`logged out of ${url} (session revoked)\n`);
    const after = await qrail(['balance']);
    expect(after.code).toBe(1);
    expect(after.err).toMatch(/^error NOT_LOGGED_IN: /);
  });

  it('an agent with only a machine credential (QRAIL_TOKEN) runs on the simulator; a scope it lacks is named', async () => {
    const login = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: PASSWORD } });
    const session = { authorization: `Bearer ${login.json().data.token as string}` };
    const create = async (scopes: string[]) => {
      const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: session, payload: { name: 'cli agent', scopes } });
      expect(r.statusCode).toBe(201);
      return r.json().data.secret as string;
    };
    // No saved login: another config file, the credential from the environment only.
    const env = { QRAIL_CONFIG: join(dir, 'agent-home', 'config.json') };
    const run = await qrail(['run', join(EXAMPLES, 'bell.qasm'), '--shots', '100', '--seed', '3'], undefined, { ...env, QRAIL_TOKEN: await create(['execute:simulator']) });
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/^run \S+ on provider-one\/p1-simulator \(simulator\): completed/);
    const refused = await qrail(['run', join(EXAMPLES, 'bell.qasm')], undefined, { ...env, QRAIL_TOKEN: await create(['jobs:read']) });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^error INSUFFICIENT_SCOPE: .*execute:simulator.*\(HTTP 403/);
  });

  it('qrail login with two-factor sign-in on: --code with the authenticator code or a recovery code; none and no terminal is a usage error', async () => {
    const mfaEmail = uniqueEmail('cli-mfa');
    expect((await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: mfaEmail, password: PASSWORD } })).statusCode).toBe(201);
    const login = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: mfaEmail, password: PASSWORD } });
    const session = { authorization: `Bearer ${login.json().data.token as string}` };
    const enrol = await app.inject({ method: 'POST', url: '/v1/auth/mfa/totp', headers: session });
    const secret = base32Decode(enrol.json().data.secret as string);
    const confirm = await app.inject({ method: 'POST', url: '/v1/auth/mfa/totp/confirm', headers: session, payload: { code: totp(secret, Date.now()) } });
    expect(confirm.statusCode).toBe(200);
    const recovery = confirm.json().data.recovery_codes as string[];
    const env = { QRAIL_CONFIG: join(dir, 'mfa-home', 'config.json') };

    const none = await qrail(['login', '--email', mfaEmail, '--password-stdin'], PASSWORD, env);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/--code/);
    const withRecovery = await qrail(['login', '--email', mfaEmail, '--password-stdin', '--code', recovery[0]!], PASSWORD, env);
    expect(withRecovery.code, withRecovery.err).toBe(0);
    expect(withRecovery.out).toMatch(new RegExp(`^logged in to .* as ${mfaEmail.replace(/[.+]/g, '\\$&')}`));
    // The next step's code (the confirm used this one; one step of drift is accepted).
    const withCode = await qrail(['login', '--email', mfaEmail, '--password-stdin', '--code', totp(secret, Date.now() + 30_000)], PASSWORD, env);
    expect(withCode.code, withCode.err).toBe(0);
    const me = await qrail(['balance', '--json'], undefined, env);
    expect(me.code, me.err).toBe(0);
  });
});
