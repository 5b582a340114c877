/**
 * GET /v1/jobs filters (issue #21 item 2) and tags on submissions (item 3): status,
 * capability_id, created_after / created_before, tag=key:value (repeatable, all must match) and
 * idempotency_key, newest first, at most 100 a page, the keyset cursor and has_more; tags are
 * bounded, returned on the Job and part of an idempotency key's request.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities, type Agent } from './helpers.js';

describe('job lists and tags', () => {
  let app: App;
  let a: Agent;
  const ids: Record<string, string> = {};
  let midpoint = '';
  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
    a = await newAgent(app, { fundMicros: 10_000_000n });
    const add = async (name: string, capability: string, tags?: Record<string, string>) => {
      const r = await submit(app, a, { capability_id: capability, request: { text: name }, idempotency_key: key(name), max_total_price: '0.1', ...(tags === undefined ? {} : { tags }) });
      expect(r.statusCode, r.body).toBe(202);
      ids[name] = r.json().job_id;
    };
    await add('e1', 'test.echo', { env: 'prod', team: 'qa' });
    await add('e2', 'test.echo', { env: 'dev' });
    // Jobs before the midpoint: e1, e2 (and e1 runs to completion).
    expect((await app.services.jobsWorker.runOnce())?.jobId).toBe(ids['e1']);
    midpoint = (await app.db.query<{ t: string }>('SELECT to_char(clock_timestamp() AT TIME ZONE \'UTC\', \'YYYY-MM-DD"T"HH24:MI:SS.US"Z"\') AS t')).rows[0]!.t;
    await add('f1', 'test.effectful', { env: 'prod', team: 'qa', run: 'r:1' });
    await add('f2', 'test.effectful', { env: 'prod', team: 'ops' });
    await add('e3', 'test.echo');
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  const list = async (query: string) => {
    const r = await app.inject({ method: 'GET', url: `/v1/jobs?${query}`, headers: a.auth });
    expect(r.statusCode, r.body).toBe(200);
    return r.json<{ jobs: Array<{ job_id: string; tags: Record<string, string>; status: string }>; next_cursor: string | null; has_more: boolean }>();
  };
  const names = (jobs: Array<{ job_id: string }>) => jobs.map((j) => Object.keys(ids).find((n) => ids[n] === j.job_id));

  it('tags are returned on the Job (empty without any)', async () => {
    const page = await list('');
    expect(names(page.jobs)).toEqual(['e3', 'f2', 'f1', 'e2', 'e1']);
    expect(page).toMatchObject({ next_cursor: null, has_more: false });
    expect(page.jobs.find((j) => j.job_id === ids['f1'])?.tags).toEqual({ env: 'prod', team: 'qa', run: 'r:1' });
    expect(page.jobs.find((j) => j.job_id === ids['e3'])?.tags).toEqual({});
    const one = (await app.inject({ method: 'GET', url: `/v1/jobs/${ids['e2']}`, headers: a.auth })).json();
    expect(one.tags).toEqual({ env: 'dev' });
  });

  it('filters by status, capability, creation time, tags (all must match) and idempotency key, combined', async () => {
    expect(names((await list('status=completed')).jobs)).toEqual(['e1']);
    expect(names((await list('status=queued')).jobs)).toEqual(['e3', 'f2', 'f1', 'e2']);
    expect(names((await list('capability_id=test.effectful')).jobs)).toEqual(['f2', 'f1']);
    expect(names((await list(`created_after=${encodeURIComponent(midpoint)}`)).jobs)).toEqual(['e3', 'f2', 'f1']);
    expect(names((await list(`created_before=${encodeURIComponent(midpoint)}`)).jobs)).toEqual(['e2', 'e1']);
    expect(names((await list('tag=env:prod')).jobs)).toEqual(['f2', 'f1', 'e1']);
    expect(names((await list('tag=env:prod&tag=team:qa')).jobs)).toEqual(['f1', 'e1']);
    // A value may hold a colon: the key ends at the first one.
    expect(names((await list(`tag=${encodeURIComponent('run:r:1')}`)).jobs)).toEqual(['f1']);
    expect(names((await list('tag=env:prod&tag=env:dev')).jobs)).toEqual([]);
    expect(names((await list('tag=env:prod&capability_id=test.echo')).jobs)).toEqual(['e1']);
    expect(names((await list(`tag=team:qa&created_after=${encodeURIComponent(midpoint)}`)).jobs)).toEqual(['f1']);
    expect(names((await list('status=queued&capability_id=test.echo')).jobs)).toEqual(['e3', 'e2']);
    const e2 = (await app.inject({ method: 'GET', url: `/v1/jobs/${ids['e2']}`, headers: a.auth })).json();
    expect(names((await list(`idempotency_key=${e2.idempotency_key}`)).jobs)).toEqual(['e2']);
    expect(names((await list(`idempotency_key=${e2.idempotency_key}&tag=env:dev`)).jobs)).toEqual(['e2']);
    expect(names((await list(`idempotency_key=${e2.idempotency_key}&tag=env:prod`)).jobs)).toEqual([]);
    expect(names((await list(`idempotency_key=${e2.idempotency_key}&status=completed`)).jobs)).toEqual([]);
  });

  it('pages: newest first, has_more and next_cursor, with the filters kept', async () => {
    const p1 = await list('tag=env:prod&limit=2');
    expect(names(p1.jobs)).toEqual(['f2', 'f1']);
    expect(p1.has_more).toBe(true);
    expect(p1.next_cursor).toEqual(expect.any(String));
    const p2 = await list(`tag=env:prod&limit=2&cursor=${p1.next_cursor}`);
    expect(names(p2.jobs)).toEqual(['e1']);
    expect(p2).toMatchObject({ has_more: false, next_cursor: null });
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const p = await list(`status=queued&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`);
      all.push(...(names(p.jobs) as string[]));
      expect(p.has_more).toBe(p.next_cursor !== null);
      cursor = p.next_cursor;
    } while (cursor !== null);
    expect(all).toEqual(['e3', 'f2', 'f1', 'e2']);
    // Another account sees none of these.
    const b = await newAgent(app, { fundMicros: 0n });
    expect((await app.inject({ method: 'GET', url: '/v1/jobs?tag=env:prod', headers: b.auth })).json()).toEqual({ jobs: [], next_cursor: null, has_more: false });
  });

  it('refuses malformed filters with 400 and their paths', async () => {
    const bad = async (query: string, path: string) => {
      const r = await app.inject({ method: 'GET', url: `/v1/jobs?${query}`, headers: a.auth });
      expect(r.statusCode, query).toBe(400);
      expect(r.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    };
    await bad('status=done', '/status');
    await bad('tag=novalue', '/tag/0');
    await bad('tag=bad key:x', '/tag/0');
    await bad(`tag=${Array.from({ length: 17 }, (_, i) => `k${i}:v`).join('&tag=')}`, '/tag');
    await bad('created_after=yesterday', '/created_after');
    await bad('limit=101', '/limit');
    await bad('cursor=not-a-cursor', '/cursor');
    await bad('colour=red', '/colour');
  });

  it('bounds tags on submission: at most 16 keys of A-Za-z0-9_.- (no colon), values of at most 128 characters', async () => {
    const body = (tags: unknown) => ({ capability_id: 'test.echo', request: { text: 't' }, idempotency_key: key('tags'), max_total_price: '0.1', tags });
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'.repeat(128)]));
    expect((await submit(app, a, body(sixteen))).statusCode).toBe(202);
    for (const tags of [{ ...sixteen, k16: 'v' }, { 'a:b': 'v' }, { '': 'v' }, { k: 'v'.repeat(129) }, { k: 1 }, { ['k'.repeat(65)]: 'v' }, ['v']]) {
      const r = await submit(app, a, body(tags));
      expect(r.statusCode, JSON.stringify(tags).slice(0, 80)).toBe(400);
      expect(r.json().error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('tags are part of an idempotency key’s request: the same tags replay, other tags are refused', async () => {
    const k = key('tagged');
    const first = await submit(app, a, { capability_id: 'test.echo', request: { text: 'k' }, idempotency_key: k, max_total_price: '0.1', tags: { a: '1', b: '2' } });
    expect(first.statusCode).toBe(202);
    const again = await submit(app, a, { capability_id: 'test.echo', request: { text: 'k' }, idempotency_key: k, max_total_price: '0.1', tags: { b: '2', a: '1' } });
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toMatchObject({ job_id: first.json().job_id, tags: { a: '1', b: '2' } });
    const other = await submit(app, a, { capability_id: 'test.echo', request: { text: 'k' }, idempotency_key: k, max_total_price: '0.1', tags: { a: '1' } });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // No tags and empty tags are the same request (a key used before tags existed still replays).
    const k2 = key('untagged');
    const plain = await submit(app, a, { capability_id: 'test.echo', request: { text: 'k' }, idempotency_key: k2, max_total_price: '0.1' });
    const empty = await submit(app, a, { capability_id: 'test.echo', request: { text: 'k' }, idempotency_key: k2, max_total_price: '0.1', tags: {} });
    expect(empty.statusCode).toBe(202);
    expect(empty.json().job_id).toBe(plain.json().job_id);
  });
});
