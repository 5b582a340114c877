import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { fixtureFile } from '../helpers/fixture-file.js';

describe('operations and OpenAPI', () => {
  let app: App;
  const routes: { method: string; url: string }[] = [];
  beforeAll(async () => {
    app = await buildTestApp();
    await app.ready();
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    routes.push(...Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([url, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), url }))));
  });
  afterAll(async () => app.close());

  it('healthz and readyz answer', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().status).toBe('ready');
  });

  it('metrics are Prometheus text with request counters', async () => {
    await app.inject({ method: 'GET', url: '/v1/auth/diagnostics' });
    const r = await app.inject({ method: 'GET', url: '/metrics' });
    expect(r.headers['content-type']).toContain('text/plain');
    expect(r.body).toMatch(/qrail_http_requests_total\{method="GET",route="\/v1\/auth\/diagnostics",status="200"\} \d+/);
    expect(r.body).toContain('# TYPE qrail_http_request_duration_seconds histogram');
  });

  it('serves OpenAPI 3.1 that documents every route', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    const documented = new Set(routes.map((r) => `${r.method} ${r.url}`));
    const registered = app.qrailRoutes;
    const missing = registered
      // The reference page, the document itself and the web console's pages (/, /console/…, the favicon) are not API
      // operations; nor is /mcp, the MCP server's JSON-RPC transport (docs/agents.md).
      .filter(
        (r) =>
          !r.url.startsWith('/docs') &&
          r.url !== '/openapi.json' &&
          r.url !== '/' &&
          r.url !== '/favicon.ico' &&
          r.url !== '/console' &&
          !r.url.startsWith('/console/') &&
          r.url !== '/mcp' &&
          r.method !== 'HEAD',
      )
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
      .filter((k) => !documented.has(k));
    expect(registered.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });

  it('implements and documents every endpoint the specification names', () => {
    const spec = readFileSync(fixtureFile('spec/000_e043c0dc03235b54.txt'), 'utf8');
    const named = new Set([...spec.matchAll(/\b(GET|POST|PATCH|PUT|DELETE) (\/v1\/[\w\-/{}]+)/g)].map((m) => `${m[1]} ${m[2]}`));
    const documented = new Set(routes.map((r) => `${r.method} ${r.url}`));
    expect(named.size).toBeGreaterThan(40);
    expect([...named].filter((k) => !documented.has(k))).toEqual([]);
  });

  it('serves an interactive API reference at /docs', async () => {
    const r = await app.inject({ method: 'GET', url: '/docs/' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toContain('text/html');
    expect(r.body.toLowerCase()).toContain('swagger');
  });

  it('gives the reference page the bare OpenAPI document it loads (not wrapped in the envelope)', async () => {
    // Swagger UI's initializer fetches ./json relative to /docs/; an enveloped document renders as
    // "Unable to render this definition".
    const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toMatch(/url:\s*resolveUrl\(['"]\.\/json['"]\)|['"]\.\/json['"]/);
    const ui = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(ui.statusCode).toBe(200);
    const doc = ui.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.status).toBeUndefined();
    expect(doc).toEqual((await app.inject({ method: 'GET', url: '/openapi.json' })).json());
  });
});
