import { readFileSync } from 'node:fs';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { METRICS } from '../../src/telemetry/metric-catalog.js';

/**
 * The files in deploy/ against the code: every metric the dashboard and the alert rules query is
 * one the service exports (the catalogue, or prom-client's process metrics), with labels it has;
 * every alert rule has what an on-call engineer needs; the Dockerfile and the compose file keep
 * their essential properties (they are not built here: no Docker daemon on this machine).
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface Panel {
  readonly title: string;
  readonly type: string;
  readonly targets?: ReadonlyArray<{ readonly expr: string }>;
  readonly panels?: readonly Panel[];
}
interface Rule {
  readonly alert?: string;
  readonly expr?: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

async function defaultMetricNames(): Promise<Set<string>> {
  const r = new Registry();
  collectDefaultMetrics({ register: r });
  return new Set((await r.getMetricsAsJSON()).map((m) => m.name));
}

/** Metric names an expression selects (qrail_*, process_*, nodejs_*), with the label names of its selector. */
function selectors(expr: string): Array<{ name: string; labels: string[] }> {
  const out: Array<{ name: string; labels: string[] }> = [];
  for (const m of expr.matchAll(/\b((?:qrail|process|nodejs)_[a-z0-9_]+)(\{([^}]*)\})?/g)) {
    const labels = [...(m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]!);
    out.push({ name: m[1]!, labels });
  }
  return out;
}

/** One problem per unknown metric or label; a histogram's _bucket/_sum/_count series name their family. */
function problemsOf(where: string, expr: string, defaults: Set<string>): string[] {
  const problems: string[] = [];
  if (selectors(expr).length === 0 && !/\bup\{/.test(expr)) problems.push(`${where}: selects no metric`);
  let depth = 0;
  for (const ch of expr) depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
  if (depth !== 0) problems.push(`${where}: unbalanced parentheses`);
  for (const { name, labels } of selectors(expr)) {
    if (defaults.has(name) || defaults.has(name.replace(/_(bucket|sum|count)$/, ''))) continue;
    const suffix = /_(bucket|sum|count)$/.exec(name)?.[1];
    const family = (Object.hasOwn(METRICS, name) ? name : name.replace(/_(bucket|sum|count)$/, '')) as keyof typeof METRICS;
    const def = Object.hasOwn(METRICS, family) ? METRICS[family] : undefined;
    if (def === undefined || (family !== name && def.type !== 'histogram')) {
      problems.push(`${where}: ${name} is not in src/telemetry/metric-catalog.ts`);
      continue;
    }
    const allowed: readonly string[] = suffix === 'bucket' ? [...def.labels, 'le'] : def.labels;
    for (const l of labels) if (!allowed.includes(l) && l !== 'instance' && l !== 'job') problems.push(`${where}: ${name} has no label ${l}`);
  }
  return problems;
}

describe('deploy/grafana/qrail-dashboard.json', () => {
  const dashboard = JSON.parse(read('deploy/grafana/qrail-dashboard.json')) as { title: string; uid: string; panels: Panel[] };
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');

  it('queries only metrics (and labels) the service exports', async () => {
    const defaults = await defaultMetricNames();
    const problems = panels.flatMap((p) => (p.targets ?? []).flatMap((t) => problemsOf(`panel "${p.title}"`, t.expr, defaults)));
    expect(problems).toEqual([]);
    expect(panels.every((p) => (p.targets ?? []).length > 0)).toBe(true);
  });

  it('has a panel for each area the on-call engineer looks at', () => {
    const used = new Set(panels.flatMap((p) => (p.targets ?? []).flatMap((t) => selectors(t.expr).map((s) => s.name.replace(/_(bucket|sum|count)$/, '')))));
    for (const name of [
      'qrail_http_requests_total',
      'qrail_http_request_duration_seconds',
      'qrail_http_errors_total',
      'qrail_jobs_submitted_total',
      'qrail_jobs_finished_total',
      'qrail_queue_depth',
      'qrail_queue_oldest_age_seconds',
      'qrail_queue_claim_wait_seconds',
      'qrail_queue_leases_lost_total',
      'qrail_queue_claims_total',
      'qrail_compute_threads_busy',
      'qrail_compute_tasks_queued',
      'qrail_compute_threads_crashed_total',
      'qrail_optimizer_runs_total',
      'qrail_holds_open',
      'qrail_holds_resolved_total',
      'qrail_money_moved_micro_usd_total',
      'qrail_processor_calls_total',
      'qrail_rate_limit_refusals_total',
      'qrail_db_pool_connections',
      'qrail_db_query_errors_total',
      'qrail_ledger_check_violations',
      'qrail_webhook_backlog',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ])
      expect(used, name).toContain(name);
  });

  it('aggregates cluster-wide series with max(), never sum()', () => {
    const clusterWide = [
      'qrail_queue_depth',
      'qrail_queue_oldest_age_seconds',
      'qrail_queue_running',
      'qrail_holds_open',
      'qrail_holds_resolved_total',
      'qrail_money_moved_micro_usd_total',
      'qrail_webhook_backlog',
    ];
    const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    for (const name of clusterWide) {
      const uses = exprs.filter((e) => e.includes(name));
      expect(uses.length, name).toBeGreaterThan(0);
      for (const e of uses) expect(e, name).toMatch(/^max\b/);
    }
  });
});

describe('deploy/prometheus', () => {
  const alerts = parse(read('deploy/prometheus/alerts.yml')) as { groups: Array<{ name: string; rules: Rule[] }> };
  const rules = alerts.groups.flatMap((g) => g.rules);

  it('alert rules query only metrics (and labels) the service exports', async () => {
    const defaults = await defaultMetricNames();
    expect(rules.flatMap((r) => problemsOf(`alert ${r.alert ?? '?'}`, r.expr ?? '', defaults))).toEqual([]);
  });

  it('every rule has a name, an expression, a duration, a severity and what to do', () => {
    const names = new Set<string>();
    for (const r of rules) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^Qrail[A-Za-z0-9]+$/);
      expect(names.has(r.alert ?? '')).toBe(false);
      names.add(r.alert ?? '');
      expect(r.expr?.trim().length ?? 0, r.alert).toBeGreaterThan(0);
      expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical'], r.alert).toContain(r.labels?.['severity']);
      expect(r.annotations?.['summary']?.length ?? 0, r.alert).toBeGreaterThan(10);
      expect(r.annotations?.['description']?.length ?? 0, r.alert).toBeGreaterThan(20);
    }
  });

  it('covers queue age, lease expiries, 5xx rate, ledger check failures, webhook backlog and processor errors', () => {
    const byMetric = (m: string) => rules.some((r) => (r.expr ?? '').includes(m));
    expect(byMetric('qrail_queue_oldest_age_seconds')).toBe(true);
    expect(rules.some((r) => /outcome="rerun"/.test(r.expr ?? '')) && byMetric('qrail_queue_leases_lost_total')).toBe(true);
    expect(rules.some((r) => /status=~"5\.\."/.test(r.expr ?? ''))).toBe(true);
    expect(byMetric('qrail_ledger_check_violations') && byMetric('qrail_ledger_checks_total')).toBe(true);
    expect(byMetric('qrail_webhook_backlog')).toBe(true);
    expect(rules.some((r) => /qrail_processor_calls_total\{outcome="error"\}/.test(r.expr ?? ''))).toBe(true);
  });

  it('the scrape configuration loads the rules and scrapes both roles on METRICS_PORT', () => {
    const prom = parse(read('deploy/prometheus/prometheus.yml')) as { rule_files: string[]; scrape_configs: Array<{ job_name: string; dns_sd_configs: Array<{ port: number }> }> };
    expect(prom.rule_files.some((f) => f.endsWith('alerts.yml'))).toBe(true);
    expect(prom.scrape_configs.map((s) => s.job_name).sort()).toEqual(['qrail-api', 'qrail-worker']);
    for (const s of prom.scrape_configs) expect(s.dns_sd_configs[0]?.port).toBe(9464);
  });
});

describe('deploy/Dockerfile and deploy/compose.yaml (parsed, not built: no Docker daemon here)', () => {
  const dockerfile = read('deploy/Dockerfile');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('the runtime image: Node 24 LTS slim pinned by digest, production dependencies only, the compiled service, a non-root user, a health check on /healthz', () => {
    // Both stages pinned to the same digest, with the update procedure beside it.
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]!);
    expect(bases.length).toBe(2);
    for (const b of bases) expect(b).toMatch(/^node:24-bookworm-slim@sha256:[0-9a-f]{64}$/);
    expect(new Set(bases).size).toBe(1);
    expect(dockerfile).toMatch(/imagetools inspect node:24-bookworm-slim/);
    expect(runtime).toMatch(/^RUN npm ci --omit=dev\b/m);
    const user = [...runtime.matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]!);
    expect(user.length).toBeGreaterThan(0);
    expect(user.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime).toMatch(/^HEALTHCHECK\b[\s\S]*\/healthz/m);
    // The console comes built from the build stage: Vite is a dev dependency.
    expect(runtime).toMatch(/^COPY --from=build \S*console\/dist \.\/console\/dist$/m);
    // The compiled service (and the embedded baseline) from the build stage's `npm ci` (its prepare script).
    expect(runtime).toMatch(/^COPY --from=build \S*\/dist \.\/dist$/m);
    expect(runtime).not.toMatch(/^COPY src\b/m);
    expect(dockerfile).toMatch(/^RUN npm ci --no-audit --no-fund$/m);
    // An init process as PID 1 (signals forwarded, espeak-ng children reaped), the data directory a volume.
    expect(runtime).toMatch(/^RUN apt-get update && apt-get install -y --no-install-recommends tini\b/m);
    expect(runtime).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--", "node", "bin\/qrail\.js"\]$/m);
    expect(runtime).toMatch(/^VOLUME \["\/var\/lib\/qrail"\]$/m);
    expect(runtime).toMatch(/DATA_DIR=\/var\/lib\/qrail/);
  });

  it('the compose file: PostgreSQL, Redis, a migration, N api and M worker processes sharing one configuration, Prometheus with the rules', () => {
    const compose = parse(read('deploy/compose.yaml'), { merge: true }) as {
      services: Record<string, { command?: string[]; environment?: Record<string, string>; image?: string; deploy?: { replicas?: unknown }; volumes?: string[] }>;
    };
    const s = compose.services;
    expect(Object.keys(s)).toEqual(expect.arrayContaining(['postgres', 'redis', 'migrate', 'api', 'worker', 'prometheus']));
    expect(s['api']?.command).toEqual(['serve', '--role', 'api']);
    expect(s['worker']?.command).toEqual(['serve', '--role', 'worker']);
    expect(s['migrate']?.command).toEqual(['migrate']);
    for (const role of ['api', 'worker', 'migrate']) {
      const env = s[role]?.environment ?? {};
      expect(env['DATABASE_URL'], role).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(env['REDIS_URL'], role).toBe('redis://redis:6379');
      expect(env['PUBLIC_BASE_URL'], role).toBeTruthy();
      expect(env['METRICS_PORT'], role).toBe('9464');
    }
    expect(s['api']?.deploy?.replicas).toBeDefined();
    expect(s['worker']?.deploy?.replicas).toBeDefined();
    expect(s['prometheus']?.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/alerts\.yml:/), expect.stringMatching(/prometheus\.yml:/)]));
  });
});
