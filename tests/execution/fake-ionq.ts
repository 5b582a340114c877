/**
 * A local fake of IonQ's v0.3 REST contract (real node:http server, ephemeral port):
 * POST /v0.3/jobs, GET /v0.3/jobs/{id}, GET /v0.3/jobs/{id}/results, PUT /v0.3/jobs/{id}/status/cancel, GET /v0.3/backends,
 * `Authorization: apiKey <key>`, IonQ-style error bodies {error, message, statusCode}.
 * Tests script its behaviour (refusals, 5xx, hangs, remote failures) and read what it got.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeJob {
  id: string;
  body: Record<string, unknown>;
  polls: number;
  /** Set by PUT /jobs/{id}/status/cancel when the script lets the job stop: polls answer canceled. */
  canceled?: boolean;
}

export interface FakeIonqScript {
  apiKey: string;
  /** Status answers for the first submissions: 'ok' | an HTTP status | 'hang'. Then 'ok'. */
  submit: Array<'ok' | number | 'hang'>;
  /** Status of GET /jobs/{id} by poll number (the last one repeats); 'hang' never answers. */
  pollStatuses: Array<'submitted' | 'ready' | 'running' | 'completed' | 'failed' | 'canceled' | 'hang' | 503>;
  /** Results histogram (state integer → probability). */
  histogram: Record<string, number>;
  backendStatus: 'available' | 'unavailable' | 'calibrating' | 'offline';
  /** What PUT /jobs/{id}/status/cancel does: stop the job (polls then answer canceled; the default), or refuse (400, it runs on). */
  cancel?: 'stop' | 'refuse';
}

export class FakeIonq {
  readonly jobs = new Map<string, FakeJob>();
  readonly requests: Array<{ method: string; path: string }> = [];
  script: FakeIonqScript = { apiKey: 'test-key', submit: [], pollStatuses: ['ready', 'running', 'completed'], histogram: { '0': 0.5, '3': 0.5 }, backendStatus: 'available' };
  private server: Server | undefined;
  private hanging: ServerResponse[] = [];
  private next = 1;

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v0.3`;
  }

  get submissions(): number {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v0.3/jobs').length;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private error(res: ServerResponse, status: number, error: string, message: string): void {
    this.send(res, status, { error, message, statusCode: status });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    this.requests.push({ method: req.method ?? 'GET', path });
    if (req.headers.authorization !== `apiKey ${this.script.apiKey}`) return this.error(res, 401, 'Unauthorized', 'Invalid API key');

    if (req.method === 'GET' && path === '/v0.3/backends') {
      return this.send(res, 200, [
        { backend: 'qpu.aria-1', status: this.script.backendStatus, qubits: 25, average_queue_time: 120000, last_updated: 1767600000 },
        { backend: 'simulator', status: 'available', qubits: 29, average_queue_time: 0, last_updated: 1767600000 },
      ]);
    }
    if (req.method === 'POST' && path === '/v0.3/jobs') {
      const mode = this.script.submit.shift() ?? 'ok';
      if (mode === 'hang') {
        this.hanging.push(res);
        return;
      }
      if (typeof mode === 'number') return this.error(res, mode, mode >= 500 ? 'Internal Server Error' : 'Bad Request', `scripted ${mode}`);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return this.error(res, 400, 'Bad Request', 'body is not JSON');
      }
      const input = body['input'] as { format?: string; qubits?: number; circuit?: unknown[] } | undefined;
      if (typeof body['target'] !== 'string' || typeof body['shots'] !== 'number' || input?.format !== 'ionq.circuit.v0' || !Array.isArray(input.circuit)) {
        return this.error(res, 400, 'Bad Request', 'target, shots and input (ionq.circuit.v0) are required');
      }
      const id = `0000000${this.next++}-fake-ionq-job`;
      this.jobs.set(id, { id, body, polls: 0 });
      return this.send(res, 200, { id, status: 'ready', request: Math.floor(Date.now() / 1000) });
    }
    const c = /^\/v0\.3\/jobs\/([^/]+)\/status\/cancel$/.exec(path);
    if (req.method === 'PUT' && c !== null) {
      const job = this.jobs.get(decodeURIComponent(c[1]!));
      if (job === undefined) return this.error(res, 404, 'Not Found', 'no such job');
      if (this.script.cancel === 'refuse') return this.error(res, 400, 'Bad Request', 'the job cannot be canceled now');
      job.canceled = true;
      return this.send(res, 200, { id: job.id, status: 'canceled' });
    }
    const m = /^\/v0\.3\/jobs\/([^/]+)(\/results)?$/.exec(path);
    if (req.method === 'GET' && m !== null) {
      const job = this.jobs.get(decodeURIComponent(m[1]!));
      if (job === undefined) return this.error(res, 404, 'Not Found', 'no such job');
      if (m[2] !== undefined) return this.send(res, 200, this.script.histogram);
      const st = job.canceled === true ? 'canceled' : this.script.pollStatuses[Math.min(job.polls, this.script.pollStatuses.length - 1)]!;
      job.polls++;
      if (st === 'hang') {
        this.hanging.push(res);
        return;
      }
      if (st === 503) return this.error(res, 503, 'Service Unavailable', 'scripted 503');
      const out: Record<string, unknown> = { id: job.id, status: st, target: job.body['target'], shots: job.body['shots'] };
      if (st === 'completed') out['results_url'] = `/v0.3/jobs/${job.id}/results`;
      if (st === 'failed') out['failure'] = { code: 'QuantumComputerError', error: 'An error occurred on the quantum computer' };
      return this.send(res, 200, out);
    }
    return this.error(res, 404, 'Not Found', `no route ${req.method} ${path}`);
  }
}

/** The app's environment for a remote device served by `fake` (its API key, no status cache), plus `extra`. */
export function fakeIonqEnv(fake: FakeIonq, extra: Record<string, string> = {}): Record<string, string> {
  return { IONQ_BASE_URL: fake.baseUrl, IONQ_API_KEY: fake.script.apiKey, EXECUTION_STATUS_CACHE_MS: '0', ...extra };
}
