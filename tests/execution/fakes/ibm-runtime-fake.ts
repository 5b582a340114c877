/**
 * A local fake of IBM Cloud IAM and IBM Quantum Runtime's REST API (real node:http server on an
 * ephemeral port), written from the public API reference — for tests only, never used at run time:
 *   POST /identity/token                       IAM: form grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=…
 *                                              → {access_token, refresh_token, token_type: "Bearer", expires_in, expiration}
 *   GET  /api/v1/backends                      → {devices: [name]}
 *   GET  /api/v1/backends/{name}/status        → {state, status, message, length_queue, backend_version}
 *   GET  /api/v1/backends/{name}/configuration → {backend_name, n_qubits, basis_gates, coupling_map}
 *   GET  /api/v1/backends/{name}/properties    → {backend_name, last_update_date, qubits, gates, general}
 *   POST /api/v1/jobs                          {program_id, backend, params: {pubs, version}, tags} → {id, backend}
 *   GET  /api/v1/jobs?tags=…&limit=…           → {jobs, count, limit, offset}
 *   GET  /api/v1/jobs/{id}                     → {id, backend, status, state: {status, reason}, tags, created}
 *   GET  /api/v1/jobs/{id}/results             → Sampler V2 {results: [{data: {c: {samples, num_bits}}}], metadata}
 *   POST /api/v1/jobs/{id}/cancel              → 204
 * Runtime calls need `Authorization: Bearer <IAM token>` and `Service-CRN: <instance>`; errors are
 * `{errors: [{code, message, more_info}], trace, status_code}` (IAM: `{errorCode, errorMessage}`);
 * 429s carry Retry-After. Tests script its behaviour and read what it got.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type IbmJobStatus = 'Queued' | 'Running' | 'Completed' | 'Failed' | 'Cancelled';

export interface IbmFakeJob {
  id: string;
  body: { program_id?: unknown; backend?: unknown; params?: { pubs?: unknown; version?: unknown }; tags?: unknown };
  tags: string[];
  polls: number;
  canceled: boolean;
  resultFetches: number;
}

/** One scripted answer: a normal one, an HTTP status (error body), a 429 with Retry-After, no answer at all, or a job accepted but no answer. */
export type Scripted = 'ok' | number | { status: 429; retryAfter: string } | 'hang' | 'accept-then-hang' | 'malformed';

export interface IbmFakeScript {
  apiKey: string;
  instance: string;
  /** Token lifetime IAM states, in seconds. */
  tokenSeconds: number;
  /** Answers for the first submissions, then 'ok'. */
  submit: Scripted[];
  /** Status of GET /jobs/{id} by poll number (the last one repeats); a number answers that HTTP status. */
  pollStatuses: Array<IbmJobStatus | number | 'hang' | 'malformed'>;
  /** The samples of each job's result (hex strings), or 'malformed'. */
  samples: string[] | 'malformed';
  /** Samples per PUB of a job with several (PUB i → pubSamples[i]; `samples` when absent). */
  pubSamples?: string[][];
  numBits: number;
  /** Answers for the job listing (findSubmitted), then 'ok'. */
  list: Array<'ok' | number>;
  backendStatus: { state: boolean; status: string; length_queue: number };
  /** Answers for the backends listing, then 'ok'. */
  backends: Array<'ok' | number | 'malformed'>;
  /**
   * IBM's own recorded answers to serve for FAKE_BACKEND instead of the built-in 7-qubit device:
   * a configuration and properties from qiskit-ibm-runtime's fake_provider (tests/fixtures/providers/ibm).
   */
  device?: { configuration: Record<string, unknown>; properties: Record<string, unknown> };
}

export const FAKE_BACKEND = 'ibm_fake_h7';

/** The 7-qubit H layout as IBM writes coupling maps: both directions of each pair. */
const H7_DIRECTED = [
  [0, 1],
  [1, 0],
  [1, 2],
  [2, 1],
  [1, 3],
  [3, 1],
  [3, 5],
  [5, 3],
  [4, 5],
  [5, 4],
  [5, 6],
  [6, 5],
];

/** The service settings that point Provider One's p1-falcon-7 at a started fake. */
export function ibmFakeEnv(fake: { readonly baseUrl: string; readonly origin: string }): Record<string, string> {
  return {
    IBM_QUANTUM_API_KEY: 'ibm-test-key',
    IBM_QUANTUM_INSTANCE: defaultIbmScript().instance,
    IBM_QUANTUM_BASE_URL: fake.baseUrl,
    IBM_QUANTUM_IAM_URL: fake.origin,
    IBM_QUANTUM_BACKENDS: `p1-falcon-7=${FAKE_BACKEND}`,
    IBM_QUANTUM_TIMEOUT_MS: '1000',
  };
}

export function defaultIbmScript(): IbmFakeScript {
  return {
    apiKey: 'ibm-test-key',
    instance: 'crn:v1:bluemix:public:quantum-computing:us-east:a/0000:1111::',
    tokenSeconds: 3600,
    submit: [],
    pollStatuses: ['Queued', 'Running', 'Completed'],
    samples: ['0x0', '0x3', '0x3', '0x0'],
    numBits: 2,
    list: [],
    backendStatus: { state: true, status: 'active', length_queue: 17 },
    backends: [],
  };
}

export class FakeIbmRuntime {
  readonly jobs = new Map<string, IbmFakeJob>();
  readonly requests: Array<{ method: string; path: string; auth: string | undefined; crn: string | undefined }> = [];
  /** Tokens IAM issued, in order; `revoke` makes Runtime refuse them (an expired token). */
  readonly tokens: string[] = [];
  private readonly revoked = new Set<string>();
  script: IbmFakeScript = defaultIbmScript();
  private server: Server | undefined;
  private hanging: ServerResponse[] = [];
  private next = 1;

  get origin(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** IBM_QUANTUM_BASE_URL for this fake. */
  get baseUrl(): string {
    return `${this.origin}/api`;
  }

  get submissions(): number {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/jobs').length;
  }

  revokeAll(): void {
    for (const t of this.tokens) this.revoked.add(t);
  }

  start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    // Node closes an idle keep-alive socket after 5 s; a client reusing it at that moment gets
    // "fetch failed". A loaded test machine can be idle that long between two calls of one test.
    this.server.keepAliveTimeout = 120_000;
    return new Promise((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
  }

  async close(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.hanging = [];
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private static send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-limit': '5', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  }

  private static error(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
    FakeIbmRuntime.send(res, status, { errors: [{ code, message, more_info: 'https://cloud.ibm.com/apidocs/quantum-computing#error-handling' }], trace: 'fake-trace', status_code: status }, headers);
  }

  private static scripted(res: ServerResponse, s: number | { status: 429; retryAfter: string }): void {
    if (typeof s === 'number') FakeIbmRuntime.error(res, s, s * 10 + 1, s >= 500 ? 'Internal error' : 'Request refused');
    else FakeIbmRuntime.error(res, 429, 4291, 'Rate limit exceeded', { 'retry-after': s.retryAfter, 'x-ratelimit-remaining': '0' });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    this.requests.push({ method, path, auth: req.headers.authorization, crn: req.headers['service-crn'] as string | undefined });

    if (method === 'POST' && path === '/identity/token') return this.iam(req, raw, res);
    if (!path.startsWith('/api/v1/')) return FakeIbmRuntime.error(res, 404, 404, 'Not found');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined || !this.tokens.includes(token) || this.revoked.has(token)) return FakeIbmRuntime.error(res, 401, 1001, 'Invalid or expired token');
    if (req.headers['service-crn'] !== this.script.instance) return FakeIbmRuntime.error(res, 403, 1002, 'The Service-CRN does not name an instance this token can use');
    if (typeof req.headers['ibm-api-version'] !== 'string') return FakeIbmRuntime.error(res, 400, 1003, 'IBM-API-Version header missing');

    const rest = path.slice('/api/v1'.length);
    if (method === 'GET' && rest === '/backends') return this.backendList(res);
    const b = /^\/backends\/([^/]+)\/(status|configuration|properties)$/.exec(rest);
    if (method === 'GET' && b !== null) return this.backend(decodeURIComponent(b[1]!), b[2]!, res);
    if (method === 'POST' && rest === '/jobs') return this.submit(raw, res);
    if (method === 'GET' && rest === '/jobs') return this.list(url, res);
    const j = /^\/jobs\/([^/]+)(\/results|\/cancel)?$/.exec(rest);
    if (j !== null) {
      const job = this.jobs.get(decodeURIComponent(j[1]!));
      if (job === undefined) return FakeIbmRuntime.error(res, 404, 1291, 'Job not found');
      if (method === 'GET' && j[2] === undefined) return this.poll(job, res);
      if (method === 'GET' && j[2] === '/results') return this.results(job, res);
      if (method === 'POST' && j[2] === '/cancel') {
        job.canceled = true;
        return FakeIbmRuntime.send(res, 204, undefined);
      }
    }
    return FakeIbmRuntime.error(res, 404, 404, 'Not found');
  }

  private iam(req: IncomingMessage, raw: string, res: ServerResponse): void {
    const form = new URLSearchParams(raw);
    if (req.headers['content-type'] !== 'application/x-www-form-urlencoded' || form.get('grant_type') !== 'urn:ibm:params:oauth:grant-type:apikey') {
      return FakeIbmRuntime.send(res, 400, { errorCode: 'BXNIM0109E', errorMessage: 'Property missing or empty', errorDetails: 'grant_type' });
    }
    if (form.get('apikey') !== this.script.apiKey) return FakeIbmRuntime.send(res, 400, { errorCode: 'BXNIM0415E', errorMessage: 'Provided API key could not be found.' });
    const token = `iam-token-${this.tokens.length + 1}`;
    this.tokens.push(token);
    const now = Math.floor(Date.now() / 1000);
    FakeIbmRuntime.send(res, 200, {
      access_token: token,
      refresh_token: 'not_supported',
      token_type: 'Bearer',
      expires_in: this.script.tokenSeconds,
      expiration: now + this.script.tokenSeconds,
      scope: 'ibm openid',
    });
  }

  private backendList(res: ServerResponse): void {
    const s = this.script.backends.shift() ?? 'ok';
    if (typeof s === 'number') return FakeIbmRuntime.scripted(res, s);
    if (s === 'malformed') return FakeIbmRuntime.send(res, 200, { devices: 'not a list' });
    FakeIbmRuntime.send(res, 200, { devices: [FAKE_BACKEND, 'ibm_other'] });
  }

  private backend(name: string, what: string, res: ServerResponse): void {
    if (name !== FAKE_BACKEND) return FakeIbmRuntime.error(res, 404, 1211, `Backend ${name} not found`);
    if (what === 'status') return FakeIbmRuntime.send(res, 200, { ...this.script.backendStatus, message: '', backend_version: '1.2.3' });
    if (this.script.device !== undefined) return FakeIbmRuntime.send(res, 200, what === 'configuration' ? this.script.device.configuration : this.script.device.properties);
    if (what === 'configuration') {
      return FakeIbmRuntime.send(res, 200, {
        backend_name: FAKE_BACKEND,
        n_qubits: 7,
        basis_gates: ['cx', 'id', 'rz', 'sx', 'x', 'measure', 'delay', 'reset'],
        coupling_map: H7_DIRECTED,
        max_shots: 100000,
      });
    }
    const qubit = (q: number) => [
      { date: '2026-11-26T05:10:00Z', name: 'T1', unit: 'us', value: 100 + q },
      { date: '2026-11-26T05:10:00Z', name: 'T2', unit: 'us', value: 80 + q },
      { date: '2026-11-26T05:10:00Z', name: 'readout_error', unit: '', value: 0.02 },
      // As on IBM's devices, reading a prepared 1 as 0 is the likelier flip; readout_error is their mean.
      { date: '2026-11-26T05:10:00Z', name: 'prob_meas0_prep1', unit: '', value: 0.026 },
      { date: '2026-11-26T05:10:00Z', name: 'prob_meas1_prep0', unit: '', value: 0.014 },
    ];
    FakeIbmRuntime.send(res, 200, {
      backend_name: FAKE_BACKEND,
      backend_version: '1.2.3',
      last_update_date: '2026-11-26T05:10:00Z',
      qubits: Array.from({ length: 7 }, (_, q) => qubit(q)),
      gates: [
        ...Array.from({ length: 7 }, (_, q) => ({ gate: 'sx', qubits: [q], parameters: [{ date: '2026-11-26T05:10:00Z', name: 'gate_error', unit: '', value: 0.0003 }] })),
        { gate: 'cx', qubits: [0, 1], parameters: [{ name: 'gate_error', unit: '', value: 0.008 }] },
        { gate: 'cx', qubits: [1, 2], parameters: [{ name: 'gate_error', unit: '', value: 0.012 }] },
        { gate: 'cx', qubits: [3, 5], parameters: [{ name: 'gate_error', unit: '', value: 1 }] },
      ],
      general: [],
    });
  }

  private submit(raw: string, res: ServerResponse): void {
    const s = this.script.submit.shift() ?? 'ok';
    if (s === 'hang') {
      this.hanging.push(res);
      return;
    }
    if (typeof s === 'number' || (typeof s === 'object' && s !== null)) return FakeIbmRuntime.scripted(res, s);
    let body: IbmFakeJob['body'];
    try {
      body = JSON.parse(raw) as IbmFakeJob['body'];
    } catch {
      return FakeIbmRuntime.error(res, 400, 1400, 'Body is not JSON');
    }
    const pubs = body.params?.pubs;
    if (body.program_id !== 'sampler' || body.backend !== FAKE_BACKEND || body.params?.version !== 2 || !Array.isArray(pubs) || pubs.length === 0) {
      return FakeIbmRuntime.error(res, 400, 1400, 'program_id sampler, a known backend, params.version 2 and at least one pub are required');
    }
    for (const pub of pubs as unknown[][]) {
      if (!Array.isArray(pub) || typeof pub[0] !== 'string' || !pub[0].startsWith('OPENQASM 3') || typeof pub[2] !== 'number') {
        return FakeIbmRuntime.error(res, 400, 1400, 'a pub is [OpenQASM 3 text, parameter values, shots]');
      }
    }
    const tags = Array.isArray(body.tags) ? body.tags.filter((t): t is string => typeof t === 'string') : [];
    const id = `cfake${String(this.next++).padStart(15, '0')}`;
    this.jobs.set(id, { id, body, tags, polls: 0, canceled: false, resultFetches: 0 });
    if (s === 'accept-then-hang') {
      this.hanging.push(res);
      return;
    }
    if (s === 'malformed') return FakeIbmRuntime.send(res, 200, { backend: FAKE_BACKEND });
    FakeIbmRuntime.send(res, 200, { id, backend: FAKE_BACKEND, private: false });
  }

  private view(job: IbmFakeJob, status: IbmJobStatus) {
    return {
      id: job.id,
      backend: FAKE_BACKEND,
      program: { id: 'sampler' },
      status,
      state: { status, ...(status === 'Failed' ? { reason: 'Circuit too deep' } : {}) },
      tags: job.tags,
      created: '2026-11-26T06:00:00Z',
    };
  }

  private list(url: URL, res: ServerResponse): void {
    const s = this.script.list.shift() ?? 'ok';
    if (s !== 'ok') return FakeIbmRuntime.scripted(res, s);
    const tags = url.searchParams.getAll('tags');
    const limit = Number(url.searchParams.get('limit') ?? '200');
    const jobs = [...this.jobs.values()].filter((j) => tags.every((t) => j.tags.includes(t))).slice(0, limit);
    FakeIbmRuntime.send(res, 200, { jobs: jobs.map((j) => this.view(j, 'Queued')), count: jobs.length, limit, offset: 0 });
  }

  private poll(job: IbmFakeJob, res: ServerResponse): void {
    const seq = this.script.pollStatuses;
    const st = job.canceled ? 'Cancelled' : seq[Math.min(job.polls, seq.length - 1)]!;
    job.polls++;
    if (st === 'hang') {
      this.hanging.push(res);
      return;
    }
    if (st === 'malformed') return FakeIbmRuntime.send(res, 200, { id: job.id });
    if (typeof st === 'number') return FakeIbmRuntime.scripted(res, st);
    FakeIbmRuntime.send(res, 200, this.view(job, st));
  }

  private results(job: IbmFakeJob, res: ServerResponse): void {
    job.resultFetches++;
    if (this.script.samples === 'malformed') return FakeIbmRuntime.send(res, 200, { results: [{ data: {} }] });
    const pubs = Array.isArray(job.body.params?.pubs) ? job.body.params.pubs.length : 1;
    const samples = this.script.samples;
    FakeIbmRuntime.send(res, 200, {
      results: Array.from({ length: pubs }, (_, i) => ({ data: { c: { samples: this.script.pubSamples?.[i] ?? samples, num_bits: this.script.numBits } }, metadata: { circuit_metadata: {} } })),
      metadata: { execution: { execution_spans: [] }, version: 2 },
    });
  }
}
