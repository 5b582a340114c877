/**
 * Remote driver for IonQ's published REST contract (API v0.3, https://docs.ionq.com):
 *   POST {base}/jobs                 → {id, status}          submit a QIS circuit
 *   GET  {base}/jobs/{id}            → {id, status, failure?} status: submitted|ready|running|completed|failed|canceled
 *   GET  {base}/jobs/{id}/results    → {"<state>": probability} state = integer, qubit 0 least significant
 *   PUT  {base}/jobs/{id}/status/cancel → {id, status}     ask IonQ to stop an accepted job
 *   GET  {base}/backends             → [{backend, status, qubits, ...}]
 * Auth header: `Authorization: apiKey <key>`. Every request has a timeout.
 *
 * Exactly-once: a submission is sent at most once. An explicit refusal (4xx) fails the
 * job; an explicit server error (5xx, 429) or a refused connection means nothing was
 * accepted, so the worker may try again later; a timeout or a dropped connection after
 * the request was sent is *uncertain* and fails the job without resending.
 */
import type { Circuit } from '../../circuits/ir.js';
import type { DeviceStatus } from '../../devices/device-catalogue.js';
import type { DeviceDriver, DriverOutcome, RunInput } from '../drivers/driver.js';
import { EXECUTION_FAILURE } from '../error-codes.js';

export interface IonqSettings {
  /** e.g. https://api.ionq.co/v0.3 */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** IonQ backend name, e.g. qpu.aria-1 (default) or simulator. */
  readonly target: string;
  readonly timeoutMs: number;
  /** Injected for tests; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

const QIS_NAMES: Readonly<Record<string, string>> = {
  x: 'x',
  y: 'y',
  z: 'z',
  h: 'h',
  s: 's',
  sdg: 'si',
  t: 't',
  tdg: 'ti',
  sx: 'v',
  sxdg: 'vi',
  rx: 'rx',
  ry: 'ry',
  rz: 'rz',
};

/** The circuit as IonQ's `ionq.circuit.v0` QIS input (measurements are implicit: every qubit, at the end). */
export function toIonqCircuit(c: Circuit): { format: 'ionq.circuit.v0'; gateset: 'qis'; qubits: number; circuit: Record<string, unknown>[] } {
  const gates: Record<string, unknown>[] = [];
  let maxQ = 0;
  for (const op of c.ops) {
    if (op.kind === 'measure') {
      maxQ = Math.max(maxQ, op.qubit);
      continue;
    }
    if (op.kind !== 'gate') continue;
    maxQ = Math.max(maxQ, ...op.qubits);
    if (op.name === 'cx') gates.push({ gate: 'cnot', control: op.qubits[0], target: op.qubits[1] });
    else if (op.name === 'swap') gates.push({ gate: 'swap', targets: [...op.qubits] });
    else {
      const name = QIS_NAMES[op.name];
      if (name === undefined) throw new Error(`gate ${op.name} has no IonQ QIS name`);
      gates.push(op.params.length > 0 ? { gate: name, target: op.qubits[0], rotation: op.params[0] } : { gate: name, target: op.qubits[0] });
    }
  }
  return { format: 'ionq.circuit.v0', gateset: 'qis', qubits: maxQ + 1, circuit: gates };
}

/**
 * IonQ's histogram (state integer → probability) as counts over the circuit's clbits,
 * clbit 0 rightmost. Counts are rounded by largest remainder so they sum to `shots`.
 */
export function histogramToCounts(hist: Record<string, number>, c: Circuit, shots: number): Record<string, number> {
  const source = new Array<number>(c.numClbits).fill(-1);
  for (const op of c.ops) if (op.kind === 'measure') source[op.clbit] = op.qubit;
  const probs = new Map<string, number>();
  for (const [state, p] of Object.entries(hist)) {
    const s = BigInt(state);
    let key = '';
    for (let cl = c.numClbits - 1; cl >= 0; cl--) {
      const q = source[cl]!;
      key += q < 0 ? '0' : ((s >> BigInt(q)) & 1n).toString();
    }
    probs.set(key, (probs.get(key) ?? 0) + p);
  }
  const total = [...probs.values()].reduce((a, b) => a + b, 0) || 1;
  const rows = [...probs.entries()].map(([k, p]) => {
    const exact = (p / total) * shots;
    return { k, n: Math.floor(exact), rem: exact - Math.floor(exact) };
  });
  let left = shots - rows.reduce((a, r) => a + r.n, 0);
  for (const r of [...rows].sort((a, b) => b.rem - a.rem || (a.k < b.k ? -1 : 1))) {
    if (left <= 0) break;
    r.n++;
    left--;
  }
  return Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.k, r.n]));
}

type Http = { kind: 'ok'; status: number; body: unknown } | { kind: 'timeout' } | { kind: 'refused'; message: string } | { kind: 'dropped'; message: string };

export class IonqDriver implements DeviceDriver {
  readonly kind = 'remote' as const;
  private readonly f: typeof fetch;

  constructor(private readonly s: IonqSettings) {
    this.f = s.fetch ?? fetch;
  }

  private async http(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Http> {
    try {
      const res = await this.f(`${this.s.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: { authorization: `apiKey ${this.s.apiKey}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.s.timeoutMs),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        /* keep the text */
      }
      return { kind: 'ok', status: res.status, body: parsed };
    } catch (e) {
      const err = e as { name?: string; message?: string; cause?: { code?: string; name?: string } };
      if (err.name === 'TimeoutError' || err.name === 'AbortError' || err.cause?.name === 'TimeoutError') return { kind: 'timeout' };
      if (err.cause?.code === 'ECONNREFUSED' || err.cause?.code === 'ENOTFOUND' || err.cause?.code === 'EAI_AGAIN') return { kind: 'refused', message: String(err.cause.code) };
      return { kind: 'dropped', message: err.message ?? 'connection failed' };
    }
  }

  private static describe(body: unknown): string {
    if (body !== null && typeof body === 'object') {
      const b = body as Record<string, unknown>;
      return [b['error'], b['message']].filter((x) => typeof x === 'string').join(': ') || JSON.stringify(body).slice(0, 200);
    }
    return String(body).slice(0, 200);
  }

  /** Outcome of a non-2xx answer. */
  private static refused(r: { status: number; body: unknown }, what: string): DriverOutcome {
    const why = `IonQ answered ${r.status} to ${what}: ${IonqDriver.describe(r.body)}`;
    if (r.status === 401 || r.status === 403) return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_AUTH_FAILED, message: why };
    if (r.status === 429 || r.status >= 500) return { state: 'retry', message: why };
    return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_REJECTED, message: why };
  }

  async submit(input: RunInput): Promise<DriverOutcome> {
    const body = { target: this.s.target, shots: input.shots, name: `qrail-${input.jobId}`, metadata: { qrail_job_id: input.jobId }, input: toIonqCircuit(input.circuit) };
    const r = await this.http('POST', '/jobs', body);
    if (r.kind === 'timeout')
      return {
        state: 'failed',
        code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN,
        message: `IonQ did not answer the submission within ${this.s.timeoutMs} ms; it may have been accepted, so it is not sent again.`,
      };
    if (r.kind === 'dropped')
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN, message: `The connection to IonQ failed during the submission (${r.message}); it is not sent again.` };
    if (r.kind === 'refused') return { state: 'retry', message: `IonQ could not be reached (${r.message}).` };
    if (r.status < 200 || r.status >= 300) return IonqDriver.refused(r, 'the submission');
    const b = r.body as { id?: unknown; status?: unknown } | null;
    if (b === null || typeof b.id !== 'string') return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN, message: 'IonQ accepted the submission but returned no job id.' };
    return { state: 'pending', remoteJobId: b.id, remoteStatus: typeof b.status === 'string' ? b.status : 'submitted' };
  }

  async poll(remoteJobId: string, input: RunInput): Promise<DriverOutcome> {
    const id = encodeURIComponent(remoteJobId);
    const r = await this.http('GET', `/jobs/${id}`);
    if (r.kind !== 'ok') return { state: 'retry', message: r.kind === 'timeout' ? `IonQ did not answer within ${this.s.timeoutMs} ms.` : `IonQ could not be reached (${r.message}).` };
    if (r.status < 200 || r.status >= 300) return IonqDriver.refused(r, `GET /jobs/${remoteJobId}`);
    const job = r.body as { status?: string; failure?: { code?: string; error?: string } } | null;
    const status = job?.status ?? 'unknown';
    if (status === 'failed' || status === 'canceled') {
      const f = job?.failure;
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_JOB_FAILED, message: `IonQ job ${remoteJobId} ${status}${f?.code ? ` (${f.code})` : ''}${f?.error ? `: ${f.error}` : ''}.` };
    }
    if (status !== 'completed') return { state: 'pending', remoteJobId, remoteStatus: status };
    const res = await this.http('GET', `/jobs/${id}/results`);
    if (res.kind !== 'ok') return { state: 'retry', message: 'IonQ results could not be fetched yet.' };
    if (res.status < 200 || res.status >= 300) return IonqDriver.refused(res, `GET /jobs/${remoteJobId}/results`);
    const hist = res.body as Record<string, number> | null;
    if (hist === null || typeof hist !== 'object' || Object.values(hist).some((p) => typeof p !== 'number')) {
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_JOB_FAILED, message: 'IonQ returned results that are not a histogram.' };
    }
    const counts = histogramToCounts(hist, input.circuit, input.shots);
    return { state: 'completed', result: { counts, probabilitiesKind: 'estimated', meta: { remote_provider: 'ionq', remote_job_id: remoteJobId, target: this.s.target } } };
  }

  /** Asks IonQ to stop the job; the next poll says whether it stopped (`canceled`) or had already finished. */
  async cancel(remoteJobId: string): Promise<boolean> {
    const r = await this.http('PUT', `/jobs/${encodeURIComponent(remoteJobId)}/status/cancel`);
    return r.kind === 'ok' && r.status >= 200 && r.status < 300;
  }

  async liveStatus(): Promise<{ status: DeviceStatus; detail: string } | null> {
    const r = await this.http('GET', '/backends');
    if (r.kind !== 'ok' || r.status !== 200 || !Array.isArray(r.body)) return null;
    const b = (r.body as Array<{ backend?: string; status?: string }>).find((x) => x.backend === this.s.target);
    if (b === undefined) return { status: 'offline', detail: `IonQ does not list the backend ${this.s.target}` };
    const st = b.status ?? 'unknown';
    return { status: st === 'available' ? 'online' : st === 'calibrating' ? 'maintenance' : 'offline', detail: `IonQ reports ${this.s.target} ${st}` };
  }
}
