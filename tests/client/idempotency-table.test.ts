import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYED_POSTS, SAFE_POSTS, mayRetry } from '../../packages/client/src/index.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

/**
 * The client decides which POSTs it keys and may retry from its own table; the server's routes
 * say which are keyed (`app.idempotentRoutes`). The two must agree, or the client would either
 * retry a POST the server does not deduplicate or send a key nobody reads.
 */
describe('the client idempotency table matches the routes', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  const template = (fastifyUrl: string) => fastifyUrl.replace(/:([A-Za-z_]+)/g, '{$1}');

  it('every keyed POST of the app is in KEYED_POSTS with its key, and nothing else is', () => {
    const fromApp: Record<string, string> = {};
    for (const [route, how] of app.idempotentRoutes) {
      const path = template(route.replace(/^POST /, ''));
      if (how.field !== null) fromApp[path] = how.field;
      else if (how.header !== null) fromApp[path] = 'header';
    }
    expect(KEYED_POSTS).toEqual(fromApp);
  });

  it('the POSTs the client repeats without a key are unkeyed routes of the app', () => {
    for (const path of SAFE_POSTS) {
      const how = [...app.idempotentRoutes].find(([route]) => template(route) === `POST ${path}`)?.[1];
      expect(how, path).toEqual({ header: null, field: null });
    }
    expect(mayRetry('POST', '/v1/auth/login', false)).toBe(false);
    expect(mayRetry('POST', '/v1/auth/register', false)).toBe(false);
    expect(mayRetry('POST', '/v1/jobs', true)).toBe(true);
    expect(mayRetry('GET', '/v1/jobs/{job_id}', false)).toBe(true);
  });
});
