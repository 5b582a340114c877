import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildLiveApp } from '../helpers/app.js';
import { bell } from '../helpers/circuits.js';
import { expectAllInvariants, key, newAgent, type Agent } from '../jobs/helpers.js';

/**
 * `qrail mcp` as an agent framework starts it: the real bin/qrail.js spawned by the SDK's
 * StdioClientTransport, pointed at a listening app with a machine credential, doing one paid job.
 */

const BIN = new URL('../../bin/qrail.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'qrail-mcp-stdio-'));
// An empty per-user config: only what the test passes counts.
const configFile = join(dir, 'config.json');

describe('qrail mcp (stdio)', { timeout: 90_000 }, () => {
  let app: App;
  let url = '';
  let agent: Agent;

  beforeAll(async () => {
    ({ app, url } = await buildLiveApp({ JOBS_POLL_MS: '20' }));
    agent = await newAgent(app, { fundMicros: 1_000_000n });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the tools over stdin/stdout: a paid job submitted, waited for and charged its quoted price', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--url', url],
      env: { QRAIL_CONFIG: configFile, QRAIL_TOKEN: agent.secret },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'qrail-stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('qrail');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('submit_job');
      const tool = async (name: string, args: Record<string, unknown> = {}): Promise<any> => {
        const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
        if (r.isError === true) throw new Error(`${name}: ${r.content[0]?.text}`);
        return r.structuredContent;
      };

      expect(await tool('get_balance')).toMatchObject({ available: '1.000000', account_id: agent.accountId });
      const job = await tool('submit_job', { capability_id: 'circuit.simulate', request: { circuit: bell, shots: 500, seed: 3 }, idempotency_key: key('stdio'), max_total_price: '0.01' });
      expect(job.status).toBe('queued');
      const waited = await tool('wait_for_job', { job_id: job.job_id, timeout_seconds: 30 });
      expect(waited).toMatchObject({ finished: true, job: { status: 'completed', receipt: { amount_captured: job.quoted_price } } });
      const spent = 1_000_000n - BigInt((await tool('get_balance')).available.replace('.', ''));
      expect(spent).toBe(BigInt(job.quoted_price.replace('.', '')));
      // The REST API sees the same job, charged once.
      const rest = (await app.inject({ method: 'GET', url: `/v1/jobs/${job.job_id}`, headers: agent.auth })).json();
      expect(rest.receipt.amount_captured).toBe(job.quoted_price);
    } finally {
      await client.close();
    }
    expect(stderr).toContain(`qrail MCP server on stdio for ${url}`);
    await expectAllInvariants(app);
  });

  it('without a credential it does not start: NOT_LOGGED_IN on stderr, exit 1, nothing on stdout', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--url', url], { env: { PATH: process.env['PATH'] ?? '', QRAIL_CONFIG: configFile } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(/NOT_LOGGED_IN/);
  });
});
