import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

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

interface Example {
  readonly line: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly status: number;
  readonly expectHeaders: Record<string, string>;
  readonly expectBody: string;
}

// ---- the markdown ------------------------------------------------------------------

function splitBlock(text: string): { head: string[]; body: string } {
  const lines = text.split('\n');
  const blank = lines.findIndex((l) => l.trim() === '');
  return blank < 0 ? { head: lines, body: '' } : { head: lines.slice(0, blank), body: lines.slice(blank + 1).join('\n').trim() };
}

function headerMap(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i <= 0) throw new Error(`not a header line: ${l}`);
    out[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return out;
}

export function parseGuide(markdown: string): Example[] {
  const blocks: { line: number; lang: string; text: string }[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(markdown); m !== null; m = re.exec(markdown)) {
    blocks.push({ line: markdown.slice(0, m.index).split('\n').length, lang: m[1] ?? '', text: m[2] ?? '' });
  }
  const examples: Example[] = [];
  for (let i = 0; i < blocks.length; i += 1) {
    const b = blocks[i]!;
    if (b.lang !== 'http' || !/^(GET|POST|PATCH|PUT|DELETE) \//.test(b.text)) continue;
    const answer = blocks[i + 1];
    if (answer?.lang !== 'http' || !answer.text.startsWith('HTTP/')) throw new Error(`docs/api-guide.md:${b.line}: a request without an answer block after it`);
    const req = splitBlock(b.text);
    const res = splitBlock(answer.text);
    const [method, path] = req.head[0]!.split(' ');
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(res.head[0]!)?.[1]);
    examples.push({
      line: b.line, method: method!, path: path!, headers: headerMap(req.head.slice(1)), body: req.body,
      status, expectHeaders: headerMap(res.head.slice(1)), expectBody: res.body,
    });
    i += 1;
  }
  return examples;
}

// ---- abbreviated JSON ----------------------------------------------------------------

const ANY = Symbol('…');
type Pattern = typeof ANY | null | boolean | number | string | Pattern[] | { [k: string]: Pattern };

/** JSON where `…` may stand for a value, array elements or object members. */
export function parsePattern(text: string): Pattern {
  let p = 0;
  const ws = () => { while (p < text.length && /\s/.test(text[p]!)) p += 1; };
  const err = (what: string): never => { throw new Error(`${what} at offset ${p}: ${JSON.stringify(text.slice(p, p + 30))}`); };
  const value = (): Pattern => {
    ws();
    const c = text[p];
    if (c === '…') { p += 1; return ANY; }
    if (c === '{') {
      p += 1;
      const o: { [k: string]: Pattern } = {};
      ws();
      if (text[p] === '}') { p += 1; return o; }
      for (;;) {
        ws();
        if (text[p] === '…') p += 1;
        else {
          const k = value();
          if (typeof k !== 'string') err('object key expected');
          ws();
          if (text[p] !== ':') err('":" expected');
          p += 1;
          o[k as string] = value();
        }
        ws();
        if (text[p] === ',') { p += 1; continue; }
        if (text[p] === '}') { p += 1; return o; }
        err('"," or "}" expected');
      }
    }
    if (c === '[') {
      p += 1;
      const a: Pattern[] = [];
      ws();
      if (text[p] === ']') { p += 1; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (text[p] === ',') { p += 1; continue; }
        if (text[p] === ']') { p += 1; return a; }
        err('"," or "]" expected');
      }
    }
    const m = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(p));
    if (m === null) return err('value expected');
    p += m[0].length;
    return JSON.parse(m[0]) as Pattern;
  };
  const v = value();
  ws();
  if (p !== text.length) err('end expected');
  return v;
}

/** Where `actual` does not match `pattern` (null when it does); binds `{{name}}` captures. */
function mismatch(pattern: Pattern, actual: unknown, path: string, vars: Map<string, string>): string | null {
  if (pattern === ANY) return null;
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 200);
  if (typeof pattern === 'string') {
    const cap = /^\{\{(\w+)\}\}$/.exec(pattern);
    if (cap !== null) {
      if (typeof actual !== 'string' && typeof actual !== 'number') return `${path}: nothing to capture as ${pattern} (got ${show(actual)})`;
      vars.set(cap[1]!, String(actual));
      return null;
    }
    if (typeof actual !== 'string') return `${path}: expected ${show(pattern)}, got ${show(actual)}`;
    return stringMatches(pattern, actual) ? null : `${path}: expected ${show(pattern)}, got ${show(actual)}`;
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${show(actual)}`;
    const items = pattern.filter((x) => x !== ANY);
    if (items.length === pattern.length) {
      if (actual.length !== items.length) return `${path}: expected ${items.length} element(s), got ${actual.length}: ${show(actual)}`;
      for (let i = 0; i < items.length; i += 1) {
        const r = mismatch(items[i]!, actual[i], `${path}/${i}`, vars);
        if (r !== null) return r;
      }
      return null;
    }
    // With `…`: the shown elements appear in this order, others may be around them.
    let j = 0;
    for (const [i, item] of items.entries()) {
      while (j < actual.length && mismatch(item, actual[j], '', new Map()) !== null) j += 1;
      if (j === actual.length) return `${path}: no element matches shown element ${i} ${show(item)} (in order)`;
      mismatch(item, actual[j], `${path}/${j}`, vars);
      j += 1;
    }
    return null;
  }
  if (pattern !== null && typeof pattern === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${show(actual)}`;
    for (const [k, v] of Object.entries(pattern)) {
      if (!(k in actual)) return `${path}: missing member "${k}"`;
      const r = mismatch(v, (actual as Record<string, unknown>)[k], `${path}/${k}`, vars);
      if (r !== null) return r;
    }
    return null;
  }
  return Object.is(pattern, actual) ? null : `${path}: expected ${show(pattern)}, got ${show(actual)}`;
}

function stringMatches(pattern: string, actual: string): boolean {
  const pieces = pattern.split('…');
  if (pieces.length === 1) return pattern === actual;
  if (!actual.startsWith(pieces[0]!) || !actual.endsWith(pieces.at(-1)!)) return false;
  let at = pieces[0]!.length;
  for (const piece of pieces.slice(1, -1)) {
    const k = actual.indexOf(piece, at);
    if (k < 0) return false;
    at = k + piece.length;
  }
  return at <= actual.length - pieces.at(-1)!.length;
}

// ---- replay --------------------------------------------------------------------------

function substitute(text: string, vars: Map<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => {
    const v = vars.get(name);
    if (v === undefined) throw new Error(`{{${name}}} is used before an answer captured it`);
    return v;
  });
}

describe('docs/api-guide.md', () => {
  let app: App;
  const examples = parseGuide(readFileSync(GUIDE, 'utf8'));
  const vars = new Map<string, string>();
  const captured: string[] = [];

  beforeAll(async () => {
    app = await buildTestApp();
    await app.ready();
  });
  afterAll(async () => {
    if (CAPTURE !== undefined) writeFileSync(CAPTURE, captured.join('\n'));
    await app.close();
  });

  it('has examples for every area, each request followed by its answer', () => {
    const paths = examples.map((e) => e.path);
    for (const prefix of ['/v1/auth/', '/v1/circuits/', '/v1/analysis/coupling', '/v1/execute/', '/v1/billing/', '/v1/oauth/token', '/v1/catalog', '/v1/jobs', '/v1/account/balance', '/v1/chat', '/v1/tts']) {
      expect(paths.some((p) => p.startsWith(prefix)), prefix).toBe(true);
    }
    for (const e of examples) expect(e.status, `line ${e.line}`).toBeGreaterThanOrEqual(200);
  });

  it('every example answers as the guide shows, in order', async () => {
    const failures: string[] = [];
    for (const e of examples) {
      const speech = e.path.startsWith('/v1/tts') || e.path.startsWith('/v1/media/');
      await app.services.executionWorker.drain();
      await app.services.jobsWorker.drain();
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
      try { body = r.body === '' ? '' : JSON.parse(r.body); } catch { /* not JSON: compared as text */ }
      captured.push(`### line ${e.line}: ${e.method} ${e.path}\nHTTP/1.1 ${r.statusCode}\n${Object.keys(e.expectHeaders).map((h) => `${h}: ${String(r.headers[h])}`).join('\n')}\n\n${typeof body === 'string' ? body.slice(0, 400) : JSON.stringify(body, null, 1)}\n`);
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
});
