import { spawnSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { METRICS } from '../../src/telemetry/metric-catalog.js';
import { buildTestApp } from '../helpers/app.js';
import { freePort } from '../helpers/browser.js';
import { bell } from '../helpers/circuits.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';
import { parsePrometheus, sampleValue, type Sample } from '../helpers/prometheus.js';
import { waitFor } from '../helpers/wait-for.js';
import { key, newAgent, submit } from '../jobs/helpers.js';

const micros = (usd: string) => Math.round(Number(usd) * 1e6);

async function scrape(app: App, headers: Record<string, string> = {}): Promise<Sample[]> {
  const r = await app.inject({ method: 'GET', url: '/metrics', headers });
  expect(r.statusCode).toBe(200);
  expect(r.headers['content-type']).toContain('text/plain');
  return parsePrometheus(r.body);
}

describe('metrics: what a paid job, an optimization and errors leave in /metrics', () => {
  let app: App;
  let samples: Sample[];
  let exposition = '';
  let receipt: { amount_captured: string };

  beforeAll(async () => {
    app = await buildTestApp();
    const agent = await newAgent(app, { fundMicros: 5_000_000n });
    const sub = await submit(app, agent, { capability_id: 'circuit.simulate', idempotency_key: key('metrics'), max_total_price: '0.01', request: { circuit: bell, shots: 100, seed: 3 } });
    expect(sub.statusCode).toBe(202);
    const jobId = sub.json().job_id as string;
    await app.services.jobsWorker.drain();
    const job = (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: agent.auth })).json();
    expect(job.status).toBe('completed');
    receipt = job.receipt;
    const opt = await app.inject({ method: 'POST', url: '/v1/circuits/optimize', headers: agent.session, payload: { circuit: bell, profile: 'safe' } });
    expect(opt.statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/v1/no-such-route' })).statusCode).toBe(404);
    samples = await scrape(app);
    exposition = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  }, 120_000);
  afterAll(async () => {
    await expectLedgerInvariants(app);
    await app.close();
  });

  it('counts the job from submission to completion, with the queue figures', () => {
    expect(sampleValue(samples, 'qrail_jobs_submitted_total', { capability: 'circuit.simulate' })).toBe(1);
    expect(sampleValue(samples, 'qrail_jobs_finished_total', { capability: 'circuit.simulate', status: 'completed', code: '' })).toBe(1);
    expect(sampleValue(samples, 'qrail_queue_claims_total', { queue: 'jobs', outcome: 'run' })).toBe(1);
    expect(sampleValue(samples, 'qrail_queue_claim_wait_seconds_count', { queue: 'jobs' })).toBe(1);
    expect(sampleValue(samples, 'qrail_queue_handle_seconds_count', { queue: 'jobs' })).toBe(1);
    expect(sampleValue(samples, 'qrail_queue_depth', { queue: 'jobs' })).toBe(0);
    expect(sampleValue(samples, 'qrail_queue_running', { queue: 'jobs' })).toBe(0);
    expect(sampleValue(samples, 'qrail_queue_oldest_age_seconds', { queue: 'execution' })).toBe(0);
    expect(sampleValue(samples, 'qrail_webhook_backlog')).toBe(0);
    expect(sampleValue(samples, 'qrail_http_requests_total', { method: 'POST', route: '/v1/jobs', status: '202' })).toBe(1);
  });

  it('reports the money the ledger moved, in micro-USD, and the hold it resolved', () => {
    expect(sampleValue(samples, 'qrail_money_moved_micro_usd_total', { kind: 'grant' })).toBe(5_000_000);
    expect(sampleValue(samples, 'qrail_money_moved_micro_usd_total', { kind: 'capture' })).toBe(micros(receipt.amount_captured));
    expect(sampleValue(samples, 'qrail_holds_resolved_total', { kind: 'job', outcome: 'captured' })).toBe(1);
    expect(sampleValue(samples, 'qrail_holds_open', { kind: 'job' })).toBe(0);
  });

  it('counts the optimization by profile and outcome, and the compute task that ran it', () => {
    expect(sampleValue(samples, 'qrail_optimizer_runs_total', { profile: 'safe', outcome: 'verified' })).toBe(1);
    expect(sampleValue(samples, 'qrail_compute_task_seconds_count', { task: 'optimize', outcome: 'ok' })).toBe(1);
    expect(sampleValue(samples, 'qrail_compute_threads_busy')).toBe(0);
  });

  it('counts errors by their stable code, and serves the process metrics', () => {
    expect(sampleValue(samples, 'qrail_http_errors_total', { code: 'NOT_FOUND', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'qrail_db_pool_connections', { state: 'total' }) !== undefined).toBe(app.db.driver === 'pg');
  });

  it('lints clean with promtool check metrics (Debian prometheus; required under CI)', () => {
    if (spawnSync('promtool', ['--version']).status !== 0) {
      expect(process.env['CI'], 'promtool is required under CI').not.toBe('true');
      return;
    }
    const r = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('uses only catalogued qrail_ names, and no label carries an id or an email', () => {
    const families = new Set(samples.filter((s) => s.name.startsWith('qrail_')).map((s) => s.name.replace(/_(bucket|sum|count)$/, '')));
    for (const f of families) expect(Object.keys(METRICS)).toContain(f);
    for (const s of samples) {
      for (const v of Object.values(s.labels)) {
        expect(v, `${s.name} label value ${v}`).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|@/);
      }
    }
  });
});

describe('metrics: documentation', () => {
  it('docs/operations.md lists every metric of the catalogue with its type', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const missing = Object.entries(METRICS).filter(([name, def]) => !doc.includes(`| \`${name}\` | ${def.type} |`));
    expect(missing.map(([n]) => n)).toEqual([]);
  });
});

describe('metrics: who may read them', () => {
  it('on a public address without protection, /metrics is not served', async () => {
    const app = await buildTestApp({ HOST: '0.0.0.0' });
    const r = await app.inject({ method: 'GET', url: '/metrics' });
    expect(r.statusCode).toBe(404);
    expect(r.json().error.message).toContain('METRICS_PORT');
    await app.close();
  });

  it('with METRICS_TOKEN, only its bearer reads them', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const app = await buildTestApp({ HOST: '0.0.0.0', METRICS_TOKEN: token });
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789abcdeX' } })).statusCode).toBe(401);
    const ok = await scrape(app, { authorization: `Bearer ${token}` });
    expect(ok.some((s) => s.name === 'qrail_queue_depth')).toBe(true);
    await app.close();
  });

  it('counts rate-limit refusals by bucket', async () => {
    const app = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '2' });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await app.inject({ method: 'GET', url: '/v1/circuits/schema' })).statusCode);
    expect(codes).toEqual([200, 200, 429]);
    expect(sampleValue(await scrape(app), 'qrail_rate_limit_refusals_total', { bucket: 'default' })).toBe(1);
    await app.close();
  });

  it('with METRICS_PORT, a worker-role process serves them on that listener and the public route answers 404', async () => {
    const app = await buildTestApp({ METRICS_PORT: '9464' });
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    await app.close();

    const port = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>), METRICS_PORT: String(port), LOG_LEVEL: 'info', PUBLIC_BASE_URL: 'http://qrail.test' };
    let dir: string | undefined;
    if (process.env['DATABASE_URL'] === undefined) {
      dir = mkdtempSync(join(tmpdir(), 'qrail-metrics-'));
      env['DATA_DIR'] = dir;
    }
    const child = spawn(process.execPath, [new URL('../../bin/qrail.js', import.meta.url).pathname, 'serve', '--role', 'worker'], { env });
    try {
      const lines: string[] = [];
      createInterface({ input: child.stdout }).on('line', (l) => lines.push(l));
      await waitFor(() => lines.some((l) => l.includes('metrics listener started')), { timeoutMs: 60_000, what: 'the metrics listener' });
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      const s = parsePrometheus(await res.text());
      expect(sampleValue(s, 'qrail_queue_depth', { queue: 'jobs' })).toBeGreaterThanOrEqual(0);
      expect(sampleValue(s, 'qrail_queue_claim_query_seconds_count', { queue: 'jobs' })).toBeGreaterThanOrEqual(1);
      expect((await fetch(`http://127.0.0.1:${port}/v1/auth/diagnostics`)).status).toBe(404);
      const started = JSON.parse(lines.find((l) => l.includes('qrail started')) ?? '{}') as { listeners?: { metrics?: number } };
      expect(started.listeners?.metrics).toBe(port);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
