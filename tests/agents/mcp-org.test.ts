import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildLiveApp, signUp, verifyEmail, createOrg } from '../helpers/app.js';

type User = Awaited<ReturnType<typeof signUp>>;

/**
 * MCP tools act in an organization through their credential: a credential belongs to the
 * organization it was created in (`Qrail-Org` at creation), so the tools it authorises read and
 * spend that organization's wallet, not the creator's personal one.
 */
describe('MCP tools in an organization', { timeout: 60_000 }, () => {
  let app: App;
  let url = '';
  let owner: User;
  let orgId: string;
  const clients: Client[] = [];

  const connect = async (secret: string) => {
    const client = new Client({ name: 'qrail-org-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
    clients.push(client);
    return client;
  };
  const balance = async (c: Client) => {
    const r = (await c.callTool({ name: 'get_balance', arguments: {} })) as { isError?: boolean; structuredContent?: { available: string; account_id: string } };
    expect(r.isError).not.toBe(true);
    return r.structuredContent;
  };
  const credential = async (headers: Record<string, string>) => {
    const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers, payload: { name: 'agent', scopes: ['jobs:read', 'jobs:write'] } });
    expect(r.statusCode, r.body).toBe(201);
    return r.json().data.secret as string;
  };

  beforeAll(async () => {
    ({ app, url } = await buildLiveApp());
    owner = await signUp(app);
    await verifyEmail(app, owner);
    orgId = await createOrg(app, owner.auth, 'Agent Lab');
    // 2.00 into the organization's wallet, 3.00 into the personal one.
    for (const [headers, amount] of [
      [{ ...owner.auth, 'qrail-org': orgId }, '2.00'],
      [owner.auth, '3.00'],
    ] as const) {
      const pay = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers, payload: { amount, payment_method: 'pm_card_visa' } });
      expect(pay.statusCode, pay.body).toBe(200);
    }
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await app.close();
  });

  it("a credential created in the organization makes get_balance read the organization's wallet; one created without Qrail-Org, the personal one", async () => {
    const [inOrg, personal] = await Promise.all([credential({ ...owner.auth, 'qrail-org': orgId }), credential(owner.auth)]);
    const [orgMcp, personalMcp] = await Promise.all([connect(inOrg), connect(personal)]);
    expect(await balance(orgMcp)).toMatchObject({ account_id: orgId, available: '2.000000' });
    expect(await balance(personalMcp)).toMatchObject({ account_id: owner.accountId, available: '3.000000' });
    // The Account Jobs interface (what the tools call) and /mcp itself refuse a Qrail-Org naming another organization; naming the credential's own is accepted.
    const other = await app.inject({ method: 'GET', url: '/v1/account/balance', headers: { authorization: `Bearer ${inOrg}`, 'qrail-org': owner.accountId } });
    expect(other.statusCode).toBe(403);
    expect(other.json().error.code).toBe('ORG_HEADER_MISMATCH');
    const own = await app.inject({ method: 'GET', url: '/v1/account/balance', headers: { authorization: `Bearer ${inOrg}`, 'qrail-org': orgId } });
    expect(own.json()).toMatchObject({ account_id: orgId, available: '2.000000' });
    const mcp = await fetch(new URL('/mcp', url), {
      method: 'POST',
      headers: { authorization: `Bearer ${inOrg}`, 'qrail-org': owner.accountId, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(403);
    expect(((await mcp.json()) as { error: { code: string } }).error.code).toBe('ORG_HEADER_MISMATCH');
  });
});
