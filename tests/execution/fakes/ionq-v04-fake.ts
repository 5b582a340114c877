/**
 * A local fake of IonQ's REST API v0.4, written from its public reference
 * (https://docs.ionq.com/api-reference/v0.4): a real node:http server on an ephemeral port.
 * Tests only: nothing at run time points at it.
 *
 *   POST /v0.4/jobs                                  {type: ionq.circuit.v1, backend, shots, name?, metadata?, noise?, input} → 201 {id, status, session_id}
 *   GET  /v0.4/jobs?limit=&next=                     {jobs: [...newest first], next}
 *   GET  /v0.4/jobs/{id}                             the job (status, failure {code, message}, results {<format>: artifact descriptor})
 *   GET  /v0.4/jobs/{id}/results/probabilities       {state: probability} (the document has no histogram path)
 *   PUT  /v0.4/jobs/{id}/status/cancel               {id, status: canceled}
 *   GET  /v0.4/backends                              the document's live systems only: qpu.forte-1, qpu.forte-enterprise-1, simulator
 *                                                    [{backend, status, qubits, average_queue_time (ms), last_updated, characterization_id?, degraded?, supported_native_gates?}]
 *   GET  /v0.4/backends/{b}/characterizations[/{id}] characterizations
 * `Authorization: apiKey <key>` (a wrong key is 401 everywhere; backends and characterizations
 * may be read without a key, as the reference says); errors `{error, message, statusCode}`;
 * 429 carries `Retry-After` (seconds). Tests script refusals, hangs, garbage and remote failures
 * and read what it received. tests/execution/provider-contract.test.ts validates its answers
 * against IonQ's published document (tests/fixtures/providers/ionq).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classicalState, invalidJobBody } from './ionq-v04-shapes.js';

export interface FakeJob {
  id: string;
  body: Record<string, unknown>;
  polls: number;
  submittedAt: string;
  /** Set by PUT …/status/cancel when the script lets the job stop: polls answer canceled. */
  canceled?: boolean;
}

// The v0.4 JobStatus values.
type PollStatus = 'submitted' | 'ready' | 'started' | 'completed' | 'failed' | 'canceled';

export interface FakeIonqScript {
  apiKey: string;
  /**
   * Answers to the next submissions, in order (then 'ok'): 'ok'; an HTTP status (refused, nothing stored);
   * 'hang' (never answers, nothing stored); 'accept-hang' (stores the job, then never answers: a timeout
   * after send); 'no-id' (stores the job, answers 201 without an id); 429 answers with Retry-After.
   */
  submit: Array<'ok' | number | 'hang' | 'accept-hang' | 'no-id'>;
  /** Status of GET /jobs/{id} by poll number (the last one repeats); 'hang' never answers, 503 is an error, 'garbage' is not JSON. */
  pollStatuses: Array<PollStatus | 'hang' | 503 | 'garbage'>;
  /** Probabilities (state integer → probability), served by GET …/results/probabilities. */
  histogram: Record<string, number>;
  /**
   * Results computed from the submitted circuit when it is classical (x/not/cnot/swap only): all
   * probability on its one basis state, keyed as IonQ documents (decimal integer, qubit 0 least significant).
   */
  fromCircuit?: boolean;
  /** The results endpoints answer this instead (malformed-response tests). */
  resultsBody?: unknown;
  /** Status of qpu.forte-1 (the default target) in GET /backends. */
  backendStatus: 'available' | 'unavailable' | 'calibrating' | 'offline' | 'retired';
  /** What PUT …/status/cancel does: stop the job (polls then answer canceled; the default), or refuse (400, it runs on). */
  cancel?: 'stop' | 'refuse';
  /** Seconds in the Retry-After of a scripted 429. */
  retryAfterSeconds?: number;
  /** GET /jobs answers 503 while set. */
  listDown?: boolean;
}

export const DEFAULT_SCRIPT: FakeIonqScript = {
  apiKey: 'test-key',
  submit: [],
  pollStatuses: ['ready', 'started', 'completed'],
  histogram: { '0': 0.5, '3': 0.5 },
  backendStatus: 'available',
};

export class FakeIonq {
  readonly jobs = new Map<string, FakeJob>();
  readonly requests: Array<{ method: string; path: string; authorization: string | undefined }> = [];
  script: FakeIonqScript = { ...DEFAULT_SCRIPT };
  private server: Server | undefined;
  private hanging: ServerResponse[] = [];
  private next = 1;

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v0.4`;
  }

  get submissions(): number {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v0.4/jobs').length;
  }

  /** Puts the script back to its defaults, keeping the jobs received. */
  reset(over: Partial<FakeIonqScript> = {}): void {
    this.script = { ...DEFAULT_SCRIPT, ...over };
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

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private error(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    const names: Record<number, string> = {
      400: 'Bad Request',
      401: 'Unauthorized',
      403: 'Forbidden',
      404: 'Not Found',
      429: 'Too Many Requests',
      500: 'Internal Server Error',
      502: 'Bad Gateway',
      503: 'Service Unavailable',
    };
    this.send(res, status, { error: names[status] ?? 'Error', message, statusCode: status }, headers);
  }

  private jobView(job: FakeJob, status: PollStatus): Record<string, unknown> {
    const b = job.body;
    return {
      id: job.id,
      status,
      type: b['type'],
      backend: b['backend'],
      dry_run: false,
      submitter_id: 'fake-submitter',
      project_id: null,
      parent_job_id: null,
      session_id: null,
      metadata: b['metadata'] ?? null,
      name: b['name'] ?? null,
      submitted_at: job.submittedAt,
      started_at: null,
      completed_at: status === 'completed' ? new Date().toISOString() : null,
      predicted_wait_time_ms: null,
      predicted_execution_duration_ms: null,
      execution_duration_ms: null,
      shots: b['shots'] ?? 100,
      ...(b['backend'] === 'simulator' ? { noise: b['noise'] ?? { model: 'ideal' } } : {}),
      failure: status === 'failed' ? { code: 'QuantumComputerError', message: 'An error occurred on the quantum computer' } : null,
      output: {},
      settings: {},
      stats: {},
      // As the document's SingleCircuitJob: artifact descriptors keyed by format (the payload is GET …/results/probabilities).
      results: status === 'completed' ? { 'ionq.result.probabilities.json.v1': { id: 'probabilities', format: 'ionq.result.probabilities.json.v1', media_type: 'application/json' } } : null,
      child_job_ids: null,
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const auth = req.headers.authorization;
    this.requests.push({ method, path, authorization: auth });
    const publicRead = method === 'GET' && path.startsWith('/v0.4/backends');
    if (!(publicRead && auth === undefined) && auth !== `apiKey ${this.script.apiKey}`) return this.error(res, 401, 'Invalid API key');

    if (method === 'GET' && path === '/v0.4/backends') {
      const at = '2026-11-20T06:00:00Z';
      const zz = ['gpi', 'gpi2', 'zz'];
      return this.send(res, 200, [
        {
          backend: 'qpu.forte-1',
          status: this.script.backendStatus,
          qubits: 36,
          average_queue_time: 120000,
          last_updated: at,
          characterization_id: 'char-forte-1',
          degraded: false,
          supported_native_gates: zz,
          supported_error_mitigations: ['debiasing'],
        },
        { backend: 'qpu.forte-enterprise-1', status: 'available', qubits: 36, average_queue_time: 3600000, last_updated: at, degraded: true, supported_native_gates: zz },
        { backend: 'simulator', status: 'available', qubits: 29, average_queue_time: 0, last_updated: at },
      ]);
    }
    const ch = /^\/v0\.4\/backends\/([^/]+)\/characterizations(?:\/([^/]+))?$/.exec(path);
    if (method === 'GET' && ch !== null) {
      const backend = decodeURIComponent(ch[1]!);
      const forte = {
        id: 'char-forte-1',
        backend,
        date: '2026-11-20T06:00:00Z',
        qubits: 36,
        fidelity: { '1q': { median: 0.9995 }, '2q': { median: 0.987 }, spam: { median: 0.9955 } },
        timing: { t1: 100, t2: 1, '1q': 0.000135, '2q': 0.0006, readout: 0.0003, reset: 0.00002 },
      };
      const enterprise = {
        id: 'char-forte-enterprise-1',
        backend,
        date: '2026-11-19T06:00:00Z',
        qubits: 36,
        connectivity: [
          [0, 1],
          [1, 2],
          [2, 0],
          [2, 3],
        ],
        fidelity: { '1q': { median: 0.9998 }, '2q': { median: 0.9952 }, spam: { median: 0.9962 } },
        timing: { t1: 10, t2: 1, readout: 0.00015, reset: 0.00002 },
      };
      const c = backend === 'qpu.forte-1' ? forte : backend === 'qpu.forte-enterprise-1' ? enterprise : null;
      if (c === null) return this.error(res, 404, `no characterizations for ${backend}`);
      if (ch[2] !== undefined) return ch[2] === c.id ? this.send(res, 200, c) : this.error(res, 404, 'no such characterization');
      return this.send(res, 200, { characterizations: [c], pages: 1 });
    }

    if (method === 'POST' && path === '/v0.4/jobs') return this.create(res, chunks);
    if (method === 'GET' && path === '/v0.4/jobs') return this.list(res, url);

    const c = /^\/v0\.4\/jobs\/([^/]+)\/status\/cancel$/.exec(path);
    if (method === 'PUT' && c !== null) {
      const job = this.jobs.get(decodeURIComponent(c[1]!));
      if (job === undefined) return this.error(res, 404, 'no such job');
      if (this.script.cancel === 'refuse') return this.error(res, 400, 'the job cannot be canceled now');
      job.canceled = true;
      return this.send(res, 200, { id: job.id, status: 'canceled' });
    }
    const m = /^\/v0\.4\/jobs\/([^/]+)(\/results\/probabilities)?$/.exec(path);
    if (method === 'GET' && m !== null) {
      const job = this.jobs.get(decodeURIComponent(m[1]!));
      if (job === undefined) return this.error(res, 404, 'no such job');
      if (m[2] !== undefined) {
        if (this.script.resultsBody !== undefined) return this.send(res, 200, this.script.resultsBody);
        const state = this.script.fromCircuit === true ? classicalState(job.body) : null;
        return this.send(res, 200, state !== null ? { [state]: 1 } : this.script.histogram);
      }
      const st = job.canceled === true ? 'canceled' : this.script.pollStatuses[Math.min(job.polls, this.script.pollStatuses.length - 1)]!;
      job.polls++;
      if (st === 'hang') {
        this.hanging.push(res);
        return;
      }
      if (st === 503) return this.error(res, 503, 'scripted 503');
      if (st === 'garbage') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>gateway says hello</html>');
        return;
      }
      return this.send(res, 200, this.jobView(job, st));
    }
    return this.error(res, 404, `no route ${method} ${path}`);
  }

  private create(res: ServerResponse, chunks: Buffer[]): void {
    const mode = this.script.submit.shift() ?? 'ok';
    if (mode === 'hang') {
      this.hanging.push(res);
      return;
    }
    if (mode === 429) return this.error(res, 429, 'rate limit exceeded', { 'retry-after': String(this.script.retryAfterSeconds ?? 7) });
    if (typeof mode === 'number') return this.error(res, mode, `scripted ${mode}`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return this.error(res, 400, 'body is not JSON');
    }
    const bad = invalidJobBody(body);
    if (bad !== null) return this.error(res, 400, bad);
    const id = `0197${String(this.next++).padStart(4, '0')}-fake-4000-8000-ionqv04job`;
    this.jobs.set(id, { id, body, polls: 0, submittedAt: new Date().toISOString() });
    if (mode === 'accept-hang') {
      this.hanging.push(res);
      return;
    }
    if (mode === 'no-id') return this.send(res, 201, { status: 'submitted', session_id: null });
    return this.send(res, 201, { id, status: 'submitted', session_id: null });
  }

  /** Newest first, `limit` per page (default 25), `next` = the id the next page starts at. */
  private list(res: ServerResponse, url: URL): void {
    if (this.script.listDown === true) return this.error(res, 503, 'scripted 503');
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 25) || 25, 1), 100);
    const all = [...this.jobs.values()].reverse();
    const from = url.searchParams.get('next');
    const start = from === null ? 0 : all.findIndex((j) => j.id === from);
    if (start < 0) return this.error(res, 400, 'unknown next cursor');
    const page = all.slice(start, start + limit);
    const nextJob = all[start + limit];
    // The list's entries are the document's BaseJob: the job without child_job_ids.
    const entry = (j: FakeJob) => Object.fromEntries(Object.entries(this.jobView(j, j.canceled === true ? 'canceled' : 'submitted')).filter(([k]) => k !== 'child_job_ids'));
    return this.send(res, 200, { jobs: page.map(entry), next: nextJob?.id ?? null });
  }
}

/** The app's environment for a remote device served by `fake` (its API key, no status cache), plus `extra`. */
export function fakeIonqEnv(fake: FakeIonq, extra: Record<string, string> = {}): Record<string, string> {
  return { IONQ_BASE_URL: fake.baseUrl, IONQ_API_KEY: fake.script.apiKey, EXECUTION_STATUS_CACHE_MS: '0', ...extra };
}
