import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheus, sampleValue, type Sample } from '../helpers/prometheus.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/wait-for.js';
import { call, runCommand, scratchDatabase, startNode, type Node } from './cluster.js';

/**
 * A PostgreSQL outage as an on-call engineer sees it: a real `serve` process reaches PostgreSQL
 * through a TCP proxy that the test cuts and restores. During the outage the connection failures
 * are counted (class 08), `qrail_db_up` reads 0, the gauges read from the database stay (stale)
 * instead of vanishing, the workers log one line for the change of state instead of a stack trace
 * per round; the shipped alert rule, evaluated by promtool over the scraped series, fires within
 * two minutes. Idle, nothing reads as waiting for a connection. PostgreSQL only (DATABASE_URL);
 * promtool (Debian's prometheus package, installed by .ci/run) must be there under CI=true.
 */
const ADMIN_URL = process.env['DATABASE_URL'];
const PROMTOOL = spawnSync('promtool', ['--version']).status === 0;
const RULES = fileURLToPath(new URL('../../deploy/prometheus/alerts.yml', import.meta.url));
const OUTAGE_SCRAPES = 12; // at a 15 s scrape interval: three minutes of outage

describe.skipIf(ADMIN_URL === undefined)('a PostgreSQL outage through a cut TCP proxy (PostgreSQL only)', () => {
  let drop: () => Promise<void> = async () => undefined;
  let proxy: TcpProxy | undefined;
  let node: Node | undefined;
  const dirs: string[] = [];

  beforeAll(async () => {
    const scratch = await scratchDatabase(ADMIN_URL ?? '', 'outage');
    drop = scratch.drop;
    const direct = new URL(scratch.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(scratch.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const env = {
      DATABASE_URL: viaProxy.toString(),
      REDIS_URL: '',
      PUBLIC_BASE_URL: 'http://qrail-outage.test',
      LOG_LEVEL: 'info',
      COMPUTE_THREADS: '1',
      JOBS_POLL_MS: '50',
      EXECUTION_POLL_MS: '50',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    };
    const m = await runCommand(['migrate'], env);
    expect(m.code, m.err).toBe(0);
    node = await startNode('all', env);
  }, 120_000);

  afterAll(async () => {
    await node?.kill('SIGKILL').catch(() => undefined);
    await proxy?.close();
    await drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const scrape = async (): Promise<Sample[]> => parsePrometheus((await call(node!.metricsUrl, 'GET', '')).body as string);
  const class08 = (s: Sample[]) => sampleValue(s, 'qrail_db_query_errors_total', { class: '08' }) ?? 0;

  it('idle: no checkout reads as waiting, the database is up', async () => {
    for (let i = 0; i < 5; i++) {
      const s = await scrape();
      expect(sampleValue(s, 'qrail_db_up')).toBe(1);
      expect(sampleValue(s, 'qrail_db_pool_connections', { state: 'waiting' })).toBe(0);
      expect(sampleValue(s, 'qrail_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    }
  });

  it('an outage is counted, visible, logged once, alerted within two minutes, and recovers', async () => {
    const n = node!;
    const before = [await scrape(), await scrape(), await scrape(), await scrape()];
    expect(before.every((s) => sampleValue(s, 'qrail_db_up') === 1)).toBe(true);
    const queueDepthBefore = sampleValue(before[3]!, 'qrail_queue_depth', { queue: 'jobs' });
    expect(queueDepthBefore).toBe(0);
    const workerErrorsBefore = n.count(/"level":50.*"worker":"/);

    await proxy!.cut();
    // Each scrape during the outage is taken after the previous one's failures were counted.
    const during: Sample[][] = [];
    for (let i = 0; i < OUTAGE_SCRAPES; i++) {
      const last = during.at(-1);
      const s = await waitFor(
        async () => {
          const x = await scrape();
          return class08(x) > (last === undefined ? class08(before[3]!) : class08(last)) ? x : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 20, what: 'more connection failures counted' },
      );
      during.push(s);
    }
    for (const s of during) {
      expect(sampleValue(s, 'qrail_db_up')).toBe(0);
      // Stale, not gone: the last value read stays beside qrail_db_up 0.
      expect(sampleValue(s, 'qrail_queue_depth', { queue: 'jobs' })).toBe(queueDepthBefore);
      expect(sampleValue(s, 'qrail_holds_open', { kind: 'job' })).toBe(0);
    }
    // A request meets the outage as a 503 the client may retry.
    const r = await call(n.url, 'GET', '/v1/catalog');
    expect([200, 503]).toContain(r.status);
    const ready = await call(n.url, 'GET', '/readyz');
    expect(ready.status).toBe(503);

    // One line for the change of state; the workers add no stack traces while it lasts.
    expect(n.count(/database unreachable/)).toBe(1);
    expect(n.count(/"level":50.*"worker":"/) - workerErrorsBefore).toBe(0);

    await proxy!.restore();
    await waitFor(async () => sampleValue(await scrape(), 'qrail_db_up') === 1, { timeoutMs: 30_000, intervalMs: 100, what: 'the database reachable again' });
    await waitFor(() => n.count(/database reachable again/) === 1, { timeoutMs: 10_000, what: 'the recovery logged' });
    expect((await call(n.url, 'GET', '/readyz')).status).toBe(200);

    // The shipped rule over these scrapes, one every 15 s: firing at 2 min, not before 1 min.
    if (!PROMTOOL) {
      expect(process.env['CI'], 'promtool is required under CI (Debian package prometheus)').not.toBe('true');
      return;
    }
    const scrapes = [...before, ...during];
    const series = (name: string, labels: string, value: (s: Sample[]) => number) => ({ series: `${name}{job="qrail",instance="node-1"${labels}}`, values: scrapes.map(value).join(' ') });
    const dir = mkdtempSync(join(tmpdir(), 'qrail-promtool-'));
    dirs.push(dir);
    const firing = 'ALERTS{alertname="QrailDatabaseUnreachable", alertstate="firing"}';
    const test = {
      rule_files: [RULES],
      evaluation_interval: '15s',
      tests: [
        {
          interval: '15s',
          input_series: [
            series('qrail_db_up', '', (s) => sampleValue(s, 'qrail_db_up') ?? 1),
            series('qrail_db_query_errors_total', ',class="08"', class08),
            series('qrail_queue_depth', ',queue="jobs"', (s) => sampleValue(s, 'qrail_queue_depth', { queue: 'jobs' }) ?? 0),
          ],
          promql_expr_test: [
            { expr: firing, eval_time: '1m45s', exp_samples: [] },
            {
              expr: firing,
              eval_time: '3m',
              exp_samples: [{ labels: `ALERTS{alertname="QrailDatabaseUnreachable", alertstate="firing", instance="node-1", job="qrail", severity="critical"}`, value: 1 }],
            },
          ],
        },
      ],
    };
    const file = join(dir, 'outage.test.yml');
    writeFileSync(file, JSON.stringify(test, null, 2));
    const out = execFileSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
  }, 180_000);
});
