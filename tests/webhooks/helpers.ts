import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { expect } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { waitFor } from '../helpers/wait-for.js';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly status: number;
}

/**
 * A local webhook receiver on a free port of 127.0.0.1. `answer(n, body)` gives the status for the
 * n-th request (0-based), or 'hang' to leave it unanswered; every request is recorded with the status it got.
 */
export async function startReceiver(answer: (n: number, body: string) => number | 'hang' = () => 200): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const status = answer(received.length, body);
      received.push({ headers: req.headers, body, status: status === 'hang' ? 0 : status });
      // 'hang': never answer (the sender is killed meanwhile); recorded with status 0.
      if (status === 'hang') return;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'receiver says no');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/hooks`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Runs the delivery worker's passes until `done` holds (the worker is not started in these tests). */
export async function deliverUntil<T>(app: App, done: () => T | Promise<T>, what: string): Promise<Exclude<T, undefined | null | false>> {
  return waitFor(
    async () => {
      await app.services.webhookWorker.runOnce();
      return done();
    },
    { what, timeoutMs: 30_000, intervalMs: 5 },
  );
}

export async function createEndpoint(app: App, auth: { authorization: string }, url: string, eventTypes: string[] = ['*']) {
  const r = await app.inject({ method: 'POST', url: '/v1/webhooks/endpoints', headers: auth, payload: { url, event_types: eventTypes } });
  if (r.statusCode !== 201) throw new Error(`endpoint: ${r.statusCode} ${r.body}`);
  return r.json().data as { endpoint_id: string; secret: string; url: string; status: string };
}

export async function allEvents(app: App, auth: { authorization: string }) {
  const r = await app.inject({ method: 'GET', url: '/v1/webhooks/events?limit=100', headers: auth });
  return r.json().data.events as Array<{ id: string; type: string; sequence: number | null; data: Record<string, unknown> }>;
}

let checker: ResponseChecker | undefined;

/** Asserts that the answer to this request conforms to the OpenAPI document (status, headers, body). */
export async function expectDocumented(app: App, method: 'GET' | 'POST' | 'DELETE', url: string, auth: { authorization: string }): Promise<void> {
  checker ??= new ResponseChecker(await openapiDocument(app));
  const r = await app.inject({ method, url, headers: auth });
  expect(checker.check(method, url, r.statusCode, r.headers, r.body), `${method} ${url}`).toEqual([]);
}
