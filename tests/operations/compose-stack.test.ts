import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadConfig } from '../../src/config/config.js';
import { KNOWN_VARIABLES } from '../../src/config/known-variables.js';
import { fixtureFile } from '../helpers/fixture-file.js';

/**
 * deploy/compose.yaml as a whole stack, without a Docker engine (none on these machines): the file
 * is valid against the Compose Specification's JSON schema, every file it mounts is in the
 * repository, and the monitoring services are wired to each other: Prometheus → Alertmanager
 * (whose routes name existing receivers and cover every severity the rules use), Grafana → Prometheus
 * and the dashboards, every qrail process → the OpenTelemetry collector.
 */
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEPLOY = join(REPO, 'deploy');
const readRepo = (path: string) => readFileSync(join(REPO, path), 'utf8');
const PROMTOOL = spawnSync('promtool', ['--version']).status === 0;

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  stop_grace_period?: string;
  depends_on?: Record<string, unknown> | string[];
}
const composeText = readRepo('deploy/compose.yaml');
const compose = parse(composeText, { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;
const QRAIL = ['migrate', 'api', 'worker'];

/** Bind mounts of a service: [host path resolved from deploy/, container path]. Named volumes are skipped. */
function binds(service: Service): Array<[string, string]> {
  return (service.volumes ?? []).filter((v) => v.startsWith('.')).map((v) => [resolve(DEPLOY, v.split(':')[0]!), v.split(':')[1]!]);
}

/** The one bind-mounted repository file a service sees at `target` (or inside a mounted folder). */
function mountedFile(service: string, target: string): string {
  for (const [host, container] of binds(services[service]!)) {
    if (target === container) return host;
    if (target.startsWith(`${container}/`)) return join(host, target.slice(container.length + 1));
  }
  throw new Error(`${service} mounts nothing at ${target}`);
}

function seconds(duration: string): number {
  const m = /^(\d+)(ms|s|m)$/.exec(duration);
  if (m === null) throw new Error(`unsupported duration ${duration}`);
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60 }[m[2] as 'ms' | 's' | 'm'];
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('deploy/compose.yaml against the Compose Specification', () => {
  const schema = JSON.parse(readFileSync(fixtureFile('compose-spec/compose-spec.json'), 'utf8')) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  // The schema names draft-07 by its https address; Ajv registers the same meta-schema under http.
  const draft7 = JSON.parse(readFileSync(join(REPO, 'node_modules/ajv/dist/refs/json-schema-draft-07.json'), 'utf8')) as object;
  ajv.addMetaSchema({ ...draft7, $id: 'https://json-schema.org/draft-07/schema' });
  const validate = ajv.compile(schema);

  it('is valid, and the validator refuses a misspelt key and a wrong type', () => {
    // Compose resolves YAML merge keys (`<<: *qrail`) before it validates; so does this parse.
    const valid = validate(parse(composeText, { merge: true }));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const broken = parse(composeText, { merge: true }) as { services: Record<string, Record<string, unknown>> };
    broken.services['api']!['restrat'] = 'always';
    broken.services['worker']!['ports'] = 8080;
    expect(validate(broken)).toBe(false);
    expect((validate.errors ?? []).map((e) => e.instancePath)).toEqual(expect.arrayContaining(['/services/api', '/services/worker/ports']));
  });

  it('mounts and builds only files that are in the repository', () => {
    const missing: string[] = [];
    let count = 0;
    for (const [name, service] of Object.entries(services)) {
      for (const [host] of binds(service)) {
        count++;
        if (!existsSync(host)) missing.push(`${name}: ${host}`);
      }
      if (service.build !== undefined) {
        const context = resolve(DEPLOY, service.build.context);
        if (!existsSync(join(context, service.build.dockerfile))) missing.push(`${name}: ${service.build.dockerfile}`);
      }
    }
    expect(missing).toEqual([]);
    expect(count).toBeGreaterThanOrEqual(7);
    // Named volumes used by services are declared at the top level.
    const named = Object.values(services).flatMap((s) => (s.volumes ?? []).filter((v) => !v.startsWith('.') && !v.startsWith('/')).map((v) => v.split(':')[0]!));
    for (const v of named) expect(Object.keys(compose.volumes ?? {}), v).toContain(v);
  });

  it('has no default database or Grafana password: the stack refuses to start without them', () => {
    const passwords = [...composeText.matchAll(/\$\{([A-Z_]*PASSWORD[A-Z_]*)(:?[-?])?([^}]*)\}/g)];
    expect(passwords.length).toBeGreaterThanOrEqual(3);
    for (const m of passwords) expect(`${m[1]}${m[2] ?? ''}`, m[0]).toBe(`${m[1]}:?`);
    expect(services['postgres']?.environment?.['POSTGRES_PASSWORD']).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('gives qrail processes longer to stop than their drain delay plus grace', () => {
    const defaults = loadConfig({});
    for (const name of QRAIL) {
      const period = services[name]?.stop_grace_period;
      expect(period, name).toBeDefined();
      expect(seconds(period!), name).toBeGreaterThan((defaults.shutdownDrainDelayMs + defaults.shutdownGraceMs) / 1000);
    }
  });
});

describe('the monitoring services are wired together', () => {
  it('Prometheus sends alerts to the Alertmanager service; promtool accepts its configuration and rules', () => {
    const prometheus = services['prometheus']!;
    const promFile = mountedFile('prometheus', '/etc/prometheus/prometheus.yml');
    const config = parse(readFileSync(promFile, 'utf8')) as { alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> }; rule_files: string[] };
    const targets = config.alerting.alertmanagers.flatMap((a) => a.static_configs.flatMap((s) => s.targets));
    expect(targets).toEqual(['alertmanager:9093']);
    expect(services['alertmanager']?.image).toMatch(/^prom\/alertmanager:v\d/);
    expect(prometheus.depends_on).toContain('alertmanager');
    for (const rule of config.rule_files) expect(existsSync(mountedFile('prometheus', rule)), rule).toBe(true);
    if (!PROMTOOL) {
      expect(process.env['CI'], 'promtool is required under CI (Debian package prometheus)').not.toBe('true');
      return;
    }
    // promtool resolves rule files on this machine: the same configuration with the repository's paths.
    const dir = mkdtempSync(join(tmpdir(), 'qrail-promconfig-'));
    dirs.push(dir);
    const local = join(dir, 'prometheus.yml');
    writeFileSync(local, stringify({ ...config, rule_files: config.rule_files.map((r) => mountedFile('prometheus', r)) }));
    const out = execFileSync('promtool', ['check', 'config', local], { encoding: 'utf8' });
    expect(out).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('Alertmanager routes every severity the rules use to a receiver it defines', () => {
    interface Route {
      receiver?: string;
      matchers?: string[];
      routes?: Route[];
    }
    const am = parse(readFileSync(mountedFile('alertmanager', '/etc/alertmanager/alertmanager.yml'), 'utf8')) as {
      route: Route;
      receivers: Array<{ name: string; webhook_configs?: Array<{ url: string }>; email_configs?: unknown[] }>;
      inhibit_rules?: Array<{ source_matchers: string[]; target_matchers: string[] }>;
    };
    const defined = new Set(am.receivers.map((r) => r.name));
    const walk = (r: Route): Route[] => [r, ...(r.routes ?? []).flatMap(walk)];
    const routes = walk(am.route);
    expect(am.route.receiver, 'the root route has a default receiver').toBeDefined();
    for (const r of routes) if (r.receiver !== undefined) expect(defined, `route receiver ${r.receiver}`).toContain(r.receiver);
    for (const r of am.receivers) expect((r.webhook_configs ?? []).length + (r.email_configs ?? []).length, r.name).toBeGreaterThan(0);

    const rules = parse(readRepo('deploy/prometheus/alerts.yml')) as { groups: Array<{ rules: Array<{ alert: string; labels: { severity: string } }> }> };
    const alerts = rules.groups.flatMap((g) => g.rules);
    const severities = new Set(alerts.map((a) => a.labels.severity));
    expect([...severities].sort()).toEqual(['critical', 'warning']);
    const firstLevel = am.route.routes ?? [];
    for (const severity of severities) {
      const route = firstLevel.find((r) => (r.matchers ?? []).includes(`severity="${severity}"`));
      expect(route, severity).toBeDefined();
    }
    expect(firstLevel.find((r) => (r.matchers ?? []).includes('severity="critical"'))?.receiver).toBe('oncall-page');
    // Inhibitions name alerts that exist.
    const names = new Set(alerts.map((a) => a.alert));
    for (const rule of am.inhibit_rules ?? []) for (const m of [...rule.source_matchers, ...rule.target_matchers]) expect(names, m).toContain(/^alertname="(.+)"$/.exec(m)?.[1]);
  });

  it('Grafana reads the compose Prometheus as its default data source and every dashboard JSON in deploy/grafana', () => {
    const sources = parse(readFileSync(mountedFile('grafana', '/etc/grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as {
      datasources: Array<{ type: string; url: string; isDefault?: boolean }>;
    };
    expect(sources.datasources).toEqual([expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true })]);
    const providers = parse(readFileSync(mountedFile('grafana', '/etc/grafana/provisioning/dashboards/qrail.yml'), 'utf8')) as {
      providers: Array<{ type: string; options: { path: string } }>;
    };
    const provider = providers.providers[0]!;
    expect(provider.type).toBe('file');
    const folder = mountedFile('grafana', provider.options.path);
    expect(statSync(folder).isDirectory()).toBe(true);
    const dashboards = readdirSync(folder).filter((f) => f.endsWith('.json'));
    expect(dashboards).toContain('qrail-dashboard.json');
    for (const d of dashboards) expect((JSON.parse(readFileSync(join(folder, d), 'utf8')) as { uid?: string }).uid, d).toBeTruthy();
  });

  it('every qrail process exports traces to the collector, whose pipeline uses only what it defines', () => {
    expect(KNOWN_VARIABLES).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
    const collectorFile = mountedFile('otel-collector', (services['otel-collector']?.command ?? []).find((c) => c.startsWith('--config='))!.slice('--config='.length));
    const collector = parse(readFileSync(collectorFile, 'utf8')) as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      processors: Record<string, unknown>;
      exporters: Record<string, unknown>;
      extensions?: Record<string, unknown>;
      service: { extensions?: string[]; pipelines: Record<string, { receivers: string[]; processors?: string[]; exporters: string[] }> };
    };
    const httpPort = collector.receivers.otlp.protocols.http.endpoint.split(':').at(-1);
    for (const name of QRAIL) expect(services[name]?.environment?.['OTEL_EXPORTER_OTLP_ENDPOINT'], name).toBe(`http://otel-collector:${httpPort}`);
    expect(services['otel-collector']?.image).toMatch(/^otel\/opentelemetry-collector-contrib:\d/);
    const traces = collector.service.pipelines['traces']!;
    for (const r of traces.receivers) expect(Object.keys(collector.receivers)).toContain(r);
    for (const p of traces.processors ?? []) expect(Object.keys(collector.processors)).toContain(p);
    for (const e of traces.exporters) expect(Object.keys(collector.exporters)).toContain(e);
    for (const x of collector.service.extensions ?? []) expect(Object.keys(collector.extensions ?? {})).toContain(x);
  });
});
