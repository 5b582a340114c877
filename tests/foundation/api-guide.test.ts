import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { mismatch, parseGuide, parsePattern, stringMatches, substitute, type Pattern } from '../helpers/api-guide.js';

/**
 * Replays docs/api-guide.md so the guide cannot go stale. Convention of the guide:
 * every example is a fenced ```http block with a request (`METHOD /path`, header lines,
 * a blank line, the body) immediately followed by a fenced ```http block with the answer
 * (`HTTP/1.1 <status> <reason>`, header lines, a blank line, the body, abbreviated).
 * The examples run in document order against one app; before each request the background
 * workers are drained, as a deployment's workers would have run by then.
 *
 * The answer is compared with what the service really says: the status code, every header
 * shown, and the body as a pattern — `…` stands for any value, for more array elements or
 * more object members, and inside a string for any text; a string `"{{name}}"` captures the
 * real value under that name, and `{{name}}` in a later request is replaced by it.
 * Object members not shown are allowed (the guide abbreviates); array elements are not,
 * unless the array shows `…`.
 *
 * API_GUIDE_CAPTURE=/tmp/answers.txt writes every real answer to that file (to update the guide).
 */

const GUIDE = fileURLToPath(new URL('../../docs/api-guide.md', import.meta.url));
const CAPTURE = process.env['API_GUIDE_CAPTURE'];
// The speech examples need the local engine (CI installs espeak-ng); without it they are skipped.
const ESPEAK = spawnSync('espeak-ng', ['--version']).status === 0;

describe('docs/api-guide.md', () => {
  let app: App;
  const examples = parseGuide(readFileSync(GUIDE, 'utf8'));
  const vars = new Map<string, string>();
  const captured: string[] = [];

  // The whole run's log, HTTP and workers, at debug level: checked for the secrets it handled.
  const logLines: string[] = [];
  const logDestination = { write: (line: string) => void logLines.push(line) };

  beforeAll(async () => {
    app = await buildTestApp({ LOG_LEVEL: 'debug' }, { logDestination });
    await app.ready();
  });
  afterAll(async () => {
    if (CAPTURE !== undefined) writeFileSync(CAPTURE, captured.join('\n'));
    await app.close();
  });

  it('has examples for every area, each request followed by its answer', () => {
    const paths = examples.map((e) => e.path);
    for (const prefix of [
      '/v1/auth/',
      '/v1/circuits/',
      '/v1/analysis/coupling',
      '/v1/execute/',
      '/v1/billing/',
      '/v1/oauth/token',
      '/v1/catalog',
      '/v1/jobs',
      '/v1/account/balance',
      '/v1/chat',
      '/v1/tts',
    ]) {
      expect(
        paths.some((p) => p.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    for (const e of examples) expect(e.status, `line ${e.line}`).toBeGreaterThanOrEqual(200);
  });

  it('every example answers as the guide shows, in order', async () => {
    const failures: string[] = [];
    for (const e of examples) {
      const speech = e.path.startsWith('/v1/tts') || e.path.startsWith('/v1/media/');
      await app.services.executionWorker.drain();
      await app.services.jobsWorker.drain();
      await app.services.optimizeWorker.drain();
      const where = `docs/api-guide.md:${e.line} ${e.method} ${e.path}`;
      let url: string;
      let headers: Record<string, string>;
      let payload: string | undefined;
      try {
        url = substitute(e.path, vars);
        headers = Object.fromEntries(Object.entries(e.headers).map(([k, v]) => [k, substitute(v, vars)]));
        payload = e.body === '' ? undefined : substitute(e.body, vars);
      } catch (err) {
        failures.push(`${where}: ${(err as Error).message}`);
        continue;
      }
      if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
      const r = await app.inject({ method: e.method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
      let body: unknown = r.body;
      try {
        body = r.body === '' ? '' : JSON.parse(r.body);
      } catch {
        /* not JSON: compared as text */
      }
      captured.push(
        `### line ${e.line}: ${e.method} ${e.path}\nHTTP/1.1 ${r.statusCode}\n${Object.keys(e.expectHeaders)
          .map((h) => `${h}: ${String(r.headers[h])}`)
          .join('\n')}\n\n${typeof body === 'string' ? body.slice(0, 400) : JSON.stringify(body, null, 1)}\n`,
      );
      if (speech && !ESPEAK) continue;
      if (r.statusCode !== e.status) failures.push(`${where}: status ${r.statusCode}, the guide shows ${e.status}: ${r.body.slice(0, 300)}`);
      for (const [h, v] of Object.entries(e.expectHeaders)) {
        const got = r.headers[h];
        if (typeof got !== 'string' || !stringMatches(v, got)) failures.push(`${where}: header ${h} is ${String(got)}, the guide shows ${v}`);
      }
      const pattern = e.expectBody === '' ? undefined : parsePattern(e.expectBody);
      if (pattern !== undefined) {
        const problem = mismatch(pattern, body, '', vars);
        if (problem !== null) failures.push(`${where}: body ${problem}`);
      }
      // The outcome a client branches on must be visible: the top-level status and error code.
      if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
        const shown = pattern !== null && typeof pattern === 'object' && !Array.isArray(pattern) ? (pattern as Record<string, Pattern>) : {};
        if ('status' in body && !('status' in shown)) failures.push(`${where}: the answer must show "status"`);
        const err = (body as { error?: unknown }).error;
        const shownErr = shown['error'];
        if (err !== null && typeof err === 'object' && !(shownErr !== null && typeof shownErr === 'object' && 'code' in shownErr)) failures.push(`${where}: the answer must show error.code`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('logs one line per request with route, status and error code, and never a secret the run created', () => {
    const entries = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = entries.filter((e) => e['msg'] === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(examples.length);
    for (const r of requests) {
      expect(typeof r['route']).toBe('string');
      expect(typeof r['status']).toBe('number');
      expect(typeof r['reqId']).toBe('string');
    }
    expect(requests.some((r) => typeof r['account_id'] === 'string')).toBe(true);
    expect(requests.some((r) => typeof r['error_code'] === 'string')).toBe(true);
    expect(entries.some((e) => e['msg'] === 'job submitted' && typeof e['job_id'] === 'string')).toBe(true);
    expect(entries.some((e) => e['msg'] === 'queue item handled' && typeof e['item_id'] === 'string')).toBe(true);
    // Every secret the guide's run created or sent: session and access tokens, the credential's secret, passwords.
    const secrets = [...vars].filter(([name]) => /token|secret/.test(name)).map(([, v]) => v);
    for (const e of examples) for (const m of e.body.matchAll(/"(?:password|new_password|current_password)"\s*:\s*"([^"]{8,})"/g)) secrets.push(m[1]!);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const log = logLines.join('');
    expect(secrets.filter((s) => log.includes(s))).toEqual([]);
  });
});
