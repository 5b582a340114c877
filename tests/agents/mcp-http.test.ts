import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildLiveApp, buildTestApp } from '../helpers/app.js';
import { bell } from '../helpers/circuits.js';
import { waitFor } from '../helpers/wait-for.js';
import { expectAllInvariants, key, newAgent, type Agent } from '../jobs/helpers.js';

/**
 * The MCP server at /mcp, driven by the SDK's own client over Streamable HTTP against a listening
 * app whose workers run: the tools, a paid job end to end, its cost against the same job through
 * REST, idempotency, the price ceiling, scopes and authentication.
 */

type ToolAnswer = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

let app: App;
let url = '';

async function connect(secret: string): Promise<Client> {
  const client = new Client({ name: 'qrail-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const r = (await client.callTool({ name, arguments: args })) as ToolAnswer;
  // The text every framework shows the model is the same object as the structured content
  // (the SDK's own refusal of arguments outside a tool's schema is text alone).
  if (r.structuredContent !== undefined) expect(JSON.parse(r.content[0]?.text ?? 'null')).toEqual(r.structuredContent);
  return r;
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(client, name, args);
  if (r.isError === true) throw new Error(`${name} failed: ${r.content[0]?.text}`);
  return r.structuredContent;
}

const simulate = (k: string, maxPrice = '0.01') => ({ capability_id: 'circuit.simulate', request: { circuit: bell, shots: 1000, seed: 7 }, idempotency_key: k, max_total_price: maxPrice });
const micros = (usd: string) => BigInt(usd.replace('.', ''));

async function restJobWhenDone(a: Agent, jobId: string): Promise<any> {
  return waitFor(
    async () => {
      const j = (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: a.auth })).json();
      return j.status === 'completed' || j.status === 'failed' ? j : undefined;
    },
    { what: `job ${jobId} finished` },
  );
}

async function restBalance(a: Agent): Promise<{ available: string; held: string }> {
  return (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json();
}

describe('the MCP server over Streamable HTTP (/mcp)', { timeout: 60_000 }, () => {
  let agent: Agent;
  let mcp: Client;

  beforeAll(async () => {
    ({ app, url } = await buildLiveApp({ JOBS_POLL_MS: '20' }));
    agent = await newAgent(app, { fundMicros: 1_000_000n });
    mcp = await connect(agent.secret);
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => {
    await mcp.close();
    await app.close();
  });

  it('lists the tools with descriptions and bounded JSON Schema inputs', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['cancel_job', 'get_balance', 'get_job', 'get_receipt', 'list_capabilities', 'list_jobs', 'submit_job', 'wait_for_job']);
    for (const t of tools) expect(t.description?.length ?? 0, t.name).toBeGreaterThan(60);
    const submit = tools.find((t) => t.name === 'submit_job')?.inputSchema as any;
    expect(submit.required.sort()).toEqual(['capability_id', 'idempotency_key', 'max_total_price', 'request']);
    expect(submit.properties.max_total_price.pattern).toBeDefined();
    expect(submit.properties.idempotency_key.pattern).toBeDefined();
    const wait = tools.find((t) => t.name === 'wait_for_job')?.inputSchema as any;
    expect(wait.properties.timeout_seconds).toMatchObject({ minimum: 1, maximum: 60 });
    expect(mcp.getServerVersion()?.name).toBe('qrail');
  });

  it('list_capabilities gives prices, availability and request schemas; get_balance the balance', async () => {
    const { capabilities } = await ok(mcp, 'list_capabilities');
    const sim = capabilities.find((c: any) => c.capability_id === 'circuit.simulate');
    expect(sim).toMatchObject({ available: true, unavailable_reason: null, currency: 'USD', product: 'product-one' });
    expect(sim.price_formula).toMatch(/shots/);
    expect(sim.example_price).toMatch(/^\d+\.\d{6}$/);
    expect(sim.request_schema.type).toBe('object');
    expect(sim.example_request.circuit).toBeDefined();
    const one = await ok(mcp, 'list_capabilities', { capability_id: 'circuit.analyze' });
    expect(one.capabilities.map((c: any) => c.capability_id)).toEqual(['circuit.analyze']);
    expect(await ok(mcp, 'get_balance')).toMatchObject({ available: '1.000000', held: '0.000000', currency: 'USD', account_id: agent.accountId });
  });

  it('submit_job → wait_for_job → result and receipt; the job costs what the same job through REST costs; a repeated key charges once', async () => {
    const before = await ok(mcp, 'get_balance');
    const k = key('mcp');
    const job = await ok(mcp, 'submit_job', { ...simulate(k), tags: { via: 'mcp' } });
    expect(job).toMatchObject({ status: 'queued', capability_id: 'circuit.simulate', idempotency_key: k, max_total_price: '0.010000', tags: { via: 'mcp' } });
    const waited = await ok(mcp, 'wait_for_job', { job_id: job.job_id, timeout_seconds: 30 });
    expect(waited.finished).toBe(true);
    expect(waited.job.status).toBe('completed');
    expect(waited.job.result.counts).toBeDefined();
    expect(Object.values(waited.job.result.counts as Record<string, number>).reduce((s, n) => s + n, 0)).toBe(1000);
    const receipt = await ok(mcp, 'get_receipt', { job_id: job.job_id });
    expect(receipt).toMatchObject({ job_id: job.job_id, status: 'completed', receipt_reference: waited.job.receipt_reference });
    expect(receipt.receipt.amount_captured).toBe(job.quoted_price);
    const after = await ok(mcp, 'get_balance');
    expect(micros(before.available) - micros(after.available)).toBe(micros(job.quoted_price));

    // The same job through REST: the same price captured, the same balance change.
    const restBefore = await restBalance(agent);
    const r = await app.inject({ method: 'POST', url: '/v1/jobs', headers: agent.auth, payload: simulate(key('rest')) });
    expect(r.statusCode).toBe(202);
    const restJob = await restJobWhenDone(agent, r.json().job_id);
    expect(restJob.receipt.amount_captured).toBe(receipt.receipt.amount_captured);
    expect(micros(restBefore.available) - micros((await restBalance(agent)).available)).toBe(micros(job.quoted_price));

    // The same key and arguments again: the same job, nothing more reserved or charged.
    const balanceNow = await ok(mcp, 'get_balance');
    const again = await ok(mcp, 'submit_job', { ...simulate(k), tags: { via: 'mcp' } });
    expect(again.job_id).toBe(job.job_id);
    expect(again.status).toBe('completed');
    expect(await ok(mcp, 'get_balance')).toMatchObject({ available: balanceNow.available, held: '0.000000' });
    const listed = await ok(mcp, 'list_jobs', { tag: ['via:mcp'], limit: 10 });
    expect(listed.jobs.map((j: any) => j.job_id)).toEqual([job.job_id]);
    expect(listed.has_more).toBe(false);
  });

  it('refusals are tool errors with the API code: price ceiling, reused key, unknown job, validation; nothing is reserved', async () => {
    const before = await ok(mcp, 'get_balance');
    const low = await call(mcp, 'submit_job', simulate(key('low'), '0.000001'));
    expect(low.isError).toBe(true);
    expect(low.structuredContent.error).toMatchObject({ code: 'PRICE_ABOVE_MAXIMUM', status: 409 });
    expect(low.structuredContent.error.message).toMatch(/.+/);
    expect(await ok(mcp, 'get_balance')).toMatchObject({ available: before.available, held: before.held });

    const k = key('reuse');
    const first = await ok(mcp, 'submit_job', simulate(k));
    const reused = await call(mcp, 'submit_job', { ...simulate(k), max_total_price: '0.02' });
    expect(reused.structuredContent.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 409 });
    await ok(mcp, 'wait_for_job', { job_id: first.job_id });

    const missing = await call(mcp, 'get_job', { job_id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.structuredContent.error).toMatchObject({ code: 'JOB_NOT_FOUND', status: 404 });

    const invalid = await call(mcp, 'submit_job', { ...simulate(key('bad')), request: { circuit: bell, shots: 0 } });
    expect(invalid.structuredContent.error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(JSON.stringify(invalid.structuredContent.error.details)).toContain('/request/shots');

    // Arguments outside the tool's own schema never reach the API.
    const outOfBounds = await call(mcp, 'wait_for_job', { job_id: first.job_id, timeout_seconds: 600 });
    expect(outOfBounds.isError).toBe(true);
    expect(outOfBounds.content[0]?.text).toMatch(/timeout_seconds/);
  });

  it('cancel_job releases a queued job’s reservation; wait_for_job gives up after its timeout without failing', async () => {
    // An app whose workers are not started keeps the job queued.
    const idle = await buildTestApp();
    try {
      await idle.listen({ port: 0, host: '127.0.0.1' });
      const idleUrl = `http://127.0.0.1:${(idle.server.address() as { port: number }).port}`;
      const a = await newAgent(idle, { fundMicros: 1_000_000n });
      const c = new Client({ name: 'qrail-test', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL('/mcp', idleUrl), { requestInit: { headers: { authorization: `Bearer ${a.secret}` } } }));
      const job = await ok(c, 'submit_job', simulate(key('cancel')));
      const waited = await ok(c, 'wait_for_job', { job_id: job.job_id, timeout_seconds: 1 });
      expect(waited).toMatchObject({ finished: false, job: { job_id: job.job_id, status: 'queued' } });
      const canceled = await ok(c, 'cancel_job', { job_id: job.job_id });
      expect(canceled).toMatchObject({ status: 'failed', error_code: 'CANCELED' });
      expect(await ok(c, 'get_balance')).toMatchObject({ available: '1.000000', held: '0.000000' });
      await c.close();
      await expectAllInvariants(idle);
    } finally {
      await idle.close();
    }
  });

  it('needs the scope of the call behind each tool: a read-only credential, or an access token narrowed to jobs:read, reads but cannot submit', async () => {
    const reader = await newAgent(app, { scopes: ['jobs:read'], fundMicros: 0n });
    const c = await connect(reader.secret);
    expect(await ok(c, 'get_balance')).toMatchObject({ account_id: reader.accountId });
    const refused = await call(c, 'submit_job', simulate(key('ro')));
    expect(refused.structuredContent.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
    await c.close();

    // A Jobs access token (JWT from the client-credentials grant) is carried to the tools' calls as it came.
    const t = await app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: agent.credentialId, client_secret: agent.secret, scope: 'jobs:read' },
    });
    expect(t.statusCode).toBe(200);
    const viaToken = await connect(t.json().access_token);
    expect(await ok(viaToken, 'get_balance')).toMatchObject({ account_id: agent.accountId });
    expect((await call(viaToken, 'cancel_job', { job_id: '00000000-0000-4000-8000-000000000000' })).structuredContent.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    await viaToken.close();
  });

  it('refuses a missing or bad bearer with 401 before any MCP message is read; GET and DELETE answer 405 (no sessions)', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(new URL('/mcp', url), { method: 'POST', headers, body: JSON.stringify(init) });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="qrail-jobs"');
    expect(((await none.json()) as any).error.code).toBe('UNAUTHENTICATED');
    const bad = await fetch(new URL('/mcp', url), { method: 'POST', headers: { ...headers, authorization: 'Bearer qrj_not-a-real-secret' }, body: JSON.stringify(init) });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await expect(connect('qrj_not-a-real-secret')).rejects.toThrow(/UNAUTHENTICATED/);
    // Authentication comes before the body: an anonymous broken body is a 401, not a 400.
    expect((await fetch(new URL('/mcp', url), { method: 'POST', headers, body: '{"jsonrpc":' })).status).toBe(401);

    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(new URL('/mcp', url), { method, headers: { authorization: `Bearer ${agent.secret}`, accept: 'text/event-stream' } });
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
    }
  });
});
