import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/qrail.js', import.meta.url).pathname;

function start(env: Record<string, string>): Promise<{ child: ChildProcessWithoutNullStreams; port: number }> {
  const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env } });
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`server exited early with ${code}`)));
  });
}

function request(port: number, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the qrail process', { timeout: 180_000 }, () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('qrail migrate applies migrations once, then reports up to date', async () => {
    const env: Record<string, string> = {};
    if (process.env['DATABASE_URL'] === undefined) {
      const dir = mkdtempSync(join(tmpdir(), 'qrail-migrate-'));
      dirs.push(dir);
      env['DATA_DIR'] = dir;
    }
    const run = () =>
      new Promise<string>((resolve) => {
        const c = spawn(process.execPath, [BIN, 'migrate'], { env: { ...process.env, ...env } });
        let out = '';
        c.stdout.on('data', (d) => (out += d));
        c.stderr.on('data', (d) => (out += d));
        c.on('exit', (code) => resolve(`${code}:${out}`));
      });
    const first = await run();
    expect(first.startsWith('0:')).toBe(true);
    const second = await run();
    expect(second).toBe('0:database is up to date\n');
  });

  it('rejects a bad variable with a message naming it', async () => {
    const out = await new Promise<string>((resolve) => {
      const c = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, PORT: 'eighty' } });
      let err = '';
      c.stderr.on('data', (d) => (err += d));
      c.on('exit', (code) => resolve(`${code}:${err}`));
    });
    expect(out).toMatch(/^2:Invalid configuration: PORT must be an integer/);
  });

  it('rejects a bad feature variable before opening the database: its name, exit 2, no stack trace', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'qrail-badfeature-'));
    dirs.push(parent);
    const dir = join(parent, 'data');
    for (const [name, value] of [
      ['TTS_ENGINE', 'festival'],
      ['EXECUTION_MAX_SHOTS', 'many'],
      ['BILLING_PROCESSOR', 'paypal'],
    ] as const) {
      const out = await new Promise<string>((resolve) => {
        const c = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, DATABASE_URL: '', DATA_DIR: dir, [name]: value } });
        let err = '';
        c.stderr.on('data', (d) => (err += d));
        c.on('exit', (code) => resolve(`${code}:${err}`));
      });
      expect(out).toMatch(new RegExp(`^2:Invalid configuration: ${name} `));
      expect(out).not.toMatch(/\n\s+at /);
      expect(existsSync(dir)).toBe(false); // the embedded database was never created
    }
  });

  it('on SIGTERM finishes in-flight requests, answers new ones 503, and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qrail-serve-'));
    dirs.push(dir);
    // The embedded store keeps this test independent of DATABASE_URL.
    const { child, port } = await start({ DATA_DIR: dir, DATABASE_URL: '', SHUTDOWN_DRAIN_DELAY_MS: '1500' });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));

    // An in-flight request: its headers reach the server before SIGTERM (the server's 100 Continue
    // says it has taken the request), its body only after the drain began.
    const body = JSON.stringify({ email: `drain.${Date.now()}@example.com`, password: 'drain password 1' });
    const inflightReq = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/auth/register',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    });
    const accepted = new Promise<void>((resolve) => inflightReq.on('continue', () => resolve()));
    const inflight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      inflightReq.on('response', (res) => {
        let data = '';
        res.on('data', (c) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
      });
      inflightReq.on('error', reject);
    });
    inflightReq.flushHeaders();
    await accepted;
    child.kill('SIGTERM');
    // Readiness fails as soon as the process has begun draining (operational routes keep answering).
    while ((await request(port, 'GET', '/readyz')).status !== 503);

    const fresh = await request(port, 'GET', '/v1/auth/diagnostics');
    expect(fresh.status).toBe(503);
    expect(JSON.parse(fresh.body).error.code).toBe('SERVICE_DRAINING');
    inflightReq.end(body);
    const done = await inflight;
    expect(done.status).toBe(201);
    expect(JSON.parse(done.body).status).toBe('ok');
    expect(await exited).toBe(0);
  });

  it('runs optimize on a compute thread under bin/qrail.js (TypeScript loads there) and lets it finish on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qrail-compute-'));
    dirs.push(dir);
    const { child, port } = await start({ DATA_DIR: dir, DATABASE_URL: '', COMPUTE_THREADS: '1', SHUTDOWN_DRAIN_DELAY_MS: '200' });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // Big enough to keep the aggressive profile busy for a second or more.
    let s = 7;
    const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const gates = Array.from({ length: 600 }, () =>
      rnd() < 0.35 ? { op: 'cx', qubits: [0, 1 + Math.floor(rnd() * 7)] } : { op: ['h', 't', 's'][Math.floor(rnd() * 3)], qubits: [Math.floor(rnd() * 8)] },
    );
    const circuit = { schema: '0.2', num_qubits: 8, num_clbits: 0, gates, measurements: [] };
    const optimize = request(port, 'POST', '/v1/circuits/optimize', JSON.stringify({ circuit, profile: 'aggressive', include_steps: false }));
    expect((await request(port, 'GET', '/healthz')).status).toBe(200);
    child.kill('SIGTERM'); // the pool closes only after in-flight requests finished
    const done = await optimize;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body).data.proof.verified).toBe(true);
    expect(await exited).toBe(0);
  });
});
