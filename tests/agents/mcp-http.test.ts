import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
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

// The SDK publishes draft-07 schemas (their $schema says so).
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true, validateFormats: true }));
/** Each tool's declared outputSchema (from tools/list), compiled; and which tools had a real answer checked against it. */
const outputValidators = new Map<string, ValidateFunction>();
const checkedTools = new Set<string>();

async function connect(secret: string): Promise<Client> {
  const client = new Client({ name: 'qrail-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const r = (await client.callTool({ name, arguments: args })) as ToolAnswer;
  // The text every framework shows the model is the same object as the structured content
  // (but list_capabilities' compact list, whose text is a summary); a tool error is text alone.
  if (r.structuredContent !== undefined && name !== 'list_capabilities') expect(JSON.parse(r.content[0]?.text ?? 'null')).toEqual(r.structuredContent);
  if (r.isError === true) expect(r.structuredContent).toBeUndefined();
  // Every real answer conforms to the tool's declared outputSchema (Ajv, formats checked).
  const v = outputValidators.get(name);
  if (r.isError !== true && v !== undefined) {
    expect(v(r.structuredContent), `${name}: ${JSON.stringify(v.errors?.slice(0, 5))}`).toBe(true);
    checkedTools.add(name);
  }
  return r;
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(client, name, args);
  if (r.isError === true) throw new Error(`${name} failed: ${r.content[0]?.text}`);
  return r.structuredContent;
}

/** A tool error's object: `{error: {code, message, status, details?}}` as JSON text. */
function refusal(r: ToolAnswer): any {
  expect(r.isError).toBe(true);
  return JSON.parse(r.content[0]?.text ?? 'null').error;
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
    for (const t of (await mcp.listTools()).tools) if (t.outputSchema !== undefined) outputValidators.set(t.name, ajv.compile(t.outputSchema));
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
    expect(JSON.stringify(submit.properties.max_total_price)).toMatch(/pattern/);
    expect(submit.properties.idempotency_key.pattern).toBeDefined();
    const wait = tools.find((t) => t.name === 'wait_for_job')?.inputSchema as any;
    expect(wait.properties.timeout_seconds).toMatchObject({ minimum: 1, maximum: 60 });
    expect(mcp.getServerVersion()?.name).toBe('qrail');
  });

  it('list_capabilities gives prices, availability and request schemas; get_balance the balance', async () => {
    const { capabilities } = await ok(mcp, 'list_capabilities', { detail: 'full' });
    const sim = capabilities.find((c: any) => c.capability_id === 'circuit.simulate');
    expect(sim).toMatchObject({ available: true, unavailable_reason: null, currency: 'USD', product: 'product-one' });
    expect(sim.price_formula).toMatch(/shots/);
    expect(sim.example_price).toMatch(/^\d+\.\d{6}$/);
    expect(sim.request_schema.type).toBe('object');
    expect(sim.example_request.circuit).toBeDefined();
    // One capability by id comes in full (what a model needs to build its request).
    const one = await ok(mcp, 'list_capabilities', { capability_id: 'circuit.analyze' });
    expect(one.capabilities.map((c: any) => c.capability_id)).toEqual(['circuit.analyze']);
    expect(one.capabilities[0].request_schema.type).toBe('object');
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
    expect(refusal(low)).toMatchObject({ code: 'PRICE_ABOVE_MAXIMUM', status: 409 });
    expect(refusal(low).message).toMatch(/.+/);
    expect(await ok(mcp, 'get_balance')).toMatchObject({ available: before.available, held: before.held });

    const k = key('reuse');
    const first = await ok(mcp, 'submit_job', simulate(k));
    const reused = await call(mcp, 'submit_job', { ...simulate(k), max_total_price: '0.02' });
    expect(refusal(reused)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 409 });
    await ok(mcp, 'wait_for_job', { job_id: first.job_id });

    const missing = await call(mcp, 'get_job', { job_id: '00000000-0000-4000-8000-000000000000' });
    expect(refusal(missing)).toMatchObject({ code: 'JOB_NOT_FOUND', status: 404 });

    const invalid = await call(mcp, 'submit_job', { ...simulate(key('bad')), request: { circuit: bell, shots: 0 } });
    expect(refusal(invalid)).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(JSON.stringify(refusal(invalid).details)).toContain('/request/shots');

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
    expect(refusal(refused)).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
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
    expect(refusal(await call(viaToken, 'cancel_job', { job_id: '00000000-0000-4000-8000-000000000000' }))).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    await viaToken.close();
  });

  it('list_capabilities without a filter is compact (ids, titles, prices, availability) and its text a short summary; detail "full" adds schemas and examples', async () => {
    const compact = await call(mcp, 'list_capabilities');
    const full = await call(mcp, 'list_capabilities', { detail: 'full' });
    const ids = (r: ToolAnswer) => r.structuredContent.capabilities.map((c: any) => c.capability_id);
    expect(ids(compact)).toEqual(ids(full));
    expect(ids(compact).length).toBeGreaterThan(5);
    for (const c of compact.structuredContent.capabilities) {
      expect(Object.keys(c).sort()).toEqual(['available', 'capability_id', 'currency', 'example_price', 'price_formula', 'product', 'title', 'unavailable_reason']);
    }
    const size = (r: ToolAnswer) => JSON.stringify(r.structuredContent).length + (r.content[0]?.text?.length ?? 0);
    expect(size(compact) * 5).toBeLessThan(size(full));
    // The text is a summary: one line per capability, not a second copy of the JSON.
    const text = compact.content[0]?.text ?? '';
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toMatch(/circuit\.simulate/);
    expect(text).toMatch(/detail/);
    expect(text.length).toBeLessThan(JSON.stringify(compact.structuredContent).length);
  });

  it('refuses arguments outside a tool’s schema, naming them (a typo is never a silently ignored filter)', async () => {
    await ok(mcp, 'submit_job', simulate(key('typo')));
    const typo = await call(mcp, 'list_jobs', { statuses: 'failed' });
    expect(typo.isError).toBe(true);
    expect(typo.content[0]?.text).toMatch(/-32602/);
    expect(typo.content[0]?.text).toMatch(/"statuses"/);
    for (const [tool, args, bad] of [
      ['get_balance', { account: 'x' }, 'account'],
      ['list_capabilities', { capability: 'circuit.simulate' }, 'capability'],
      ['submit_job', { ...simulate(key('extra')), max_price: '0.01' }, 'max_price'],
      ['get_job', { job_id: '00000000-0000-4000-8000-000000000000', verbose: true }, 'verbose'],
      ['wait_for_job', { job_id: '00000000-0000-4000-8000-000000000000', timeout: 5 }, 'timeout'],
    ] as const) {
      const r = await call(mcp, tool, args);
      expect(r.isError, tool).toBe(true);
      expect(r.content[0]?.text, tool).toMatch(new RegExp(`"${bad}"`));
    }
    const { tools } = await mcp.listTools();
    for (const t of tools) expect((t.inputSchema as any).additionalProperties, t.name).toBe(false);
  });

  it('max_total_price may be a JSON number: converted exactly through its decimal form, more than 6 decimals refused', async () => {
    const k = key('num');
    const job = await ok(mcp, 'submit_job', { ...simulate(k), max_total_price: 0.01 });
    expect(job.max_total_price).toBe('0.010000');
    expect((await ok(mcp, 'submit_job', { ...simulate(k), max_total_price: '0.01' })).job_id).toBe(job.job_id);
    expect((await ok(mcp, 'submit_job', { ...simulate(key('num1')), max_total_price: 1 })).max_total_price).toBe('1.000000');
    await ok(mcp, 'wait_for_job', { job_id: job.job_id });
    for (const bad of [0.0000001, 0.1234567, -1]) {
      const r = await call(mcp, 'submit_job', { ...simulate(key('numbad')), max_total_price: bad });
      expect(r.isError, String(bad)).toBe(true);
      expect(r.content[0]?.text, String(bad)).toMatch(/max_total_price/);
      expect(r.content[0]?.text, String(bad)).toMatch(/6 decimals/);
    }
    const { tools } = await mcp.listTools();
    const price = (tools.find((t) => t.name === 'submit_job')?.inputSchema as any).properties.max_total_price;
    expect(JSON.stringify(price)).toMatch(/"string"/);
    expect(JSON.stringify(price)).toMatch(/"number"/);
  });

  it('declares an outputSchema for every tool, and every tool’s real answers in these tests conform to it', async () => {
    const { tools } = await mcp.listTools();
    for (const t of tools) expect(t.outputSchema?.type, t.name).toBe('object');
    // The earlier tests called every tool; each success was checked in call().
    const last = (await ok(mcp, 'list_jobs', { limit: 1 })).jobs[0].job_id;
    await ok(mcp, 'get_receipt', { job_id: last });
    await ok(mcp, 'get_job', { job_id: last });
    expect([...checkedTools].sort()).toEqual(tools.map((t) => t.name).sort());
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
