/**
 * Remote driver for IonQ's REST API v0.4 (https://docs.ionq.com/api-reference/v0.4):
 *   POST {base}/jobs                          {type: "ionq.circuit.v1", backend, shots, name, metadata, input, noise?,
 *                                             settings: {error_mitigation: {debiasing}} on a QPU} → {id, status}
 *                                             input in the QIS gate set, or native (gpi/gpi2 and the family's ms or zz) with IONQ_GATESET=native
 *   GET  {base}/jobs/{id}                     the job: status submitted|ready|started|completed|failed|canceled,
 *                                             failure {code, message}, results {<format>: artifact descriptor}
 *   GET  {base}/jobs/{id}/results/probabilities  probabilities per state (counts by largest remainder): the one
 *                                             result path the v0.4 document has (no histogram path; the
 *                                             descriptors in `results` are for the artifacts endpoint)
 *   PUT  {base}/jobs/{id}/status/cancel       ask IonQ to stop an accepted job
 *   GET  {base}/jobs?limit=&next=             recent jobs (newest first): finds an uncertain submission by our tag
 *   GET  {base}/backends                      backend status (readiness)
 * Auth header `Authorization: apiKey <key>`; error bodies `{error, message, statusCode}`.
 * v0.3 is not spoken (its field names and result URLs differ); settings refuse a v0.3 base URL.
 *
 * Exactly-once: a submission is sent at most once. An explicit refusal (4xx) fails the job; an
 * explicit server error (5xx, 429) or a refused connection means nothing was accepted, so the
 * worker may try again later (after Retry-After when IonQ sends one); a timeout or a dropped
 * connection after the request was sent is *uncertain*: `findSubmitted` looks the job up by the
 * client tag (our job id in `metadata.qrail_job_id` and the name) before anything is resent.
 */
import type { DeviceStatus } from '../../devices/device-catalogue.js';
import type { DeviceDriver, DriverOutcome, RunInput } from '../drivers/driver.js';
import { EXECUTION_FAILURE } from '../error-codes.js';
import { hardwareResultJson } from '../hardware-workload.js';
import { probabilitiesToCounts, readStateMap, toIonqInput } from './ionq-circuit.js';
import { ionqTwoQubitNative, toIonqNativeInput } from './ionq-native.js';
import { describeIonqError, IonqHttp, isObject, type IonqAnswer, type IonqConnection } from './ionq-http.js';

export interface IonqSettings extends IonqConnection {
  /** IonQ backend name, e.g. qpu.forte-1 (default) or simulator. */
  readonly target: string;
  /** Noise model for the `simulator` backend (e.g. forte-1); unset = ideal. Never sent to a QPU. */
  readonly noiseModel?: string | undefined;
  /** The gate set jobs are written in: `qis` (default; IonQ compiles) or `native` (gpi/gpi2 and ms or zz by family, written here). */
  readonly gateset?: 'qis' | 'native';
  /** How far back `findSubmitted` reads the job list before it calls a job absent. */
  readonly lookupPages?: number;
}

/** The metadata key carrying our job id (IonQ stores metadata verbatim; values are strings). */
export const CLIENT_TAG_KEY = 'qrail_job_id';
const PAGE_SIZE = 100;

/** What the worker stores as the remote status while a job is not finished. */
const PENDING = new Set(['submitted', 'ready', 'started', 'running']);

type Answered = Extract<IonqAnswer, { kind: 'ok' }>;

export class IonqDriver implements DeviceDriver {
  readonly kind = 'remote' as const;
  private readonly http: IonqHttp;

  constructor(private readonly s: IonqSettings) {
    this.http = new IonqHttp(s);
  }

  private notAnswered(r: Exclude<IonqAnswer, Answered>): DriverOutcome {
    return { state: 'retry', message: r.kind === 'timeout' ? `IonQ did not answer within ${this.s.timeoutMs} ms.` : `IonQ could not be reached (${r.message}).` };
  }

  /** Outcome of a non-2xx answer. */
  private static refused(r: Answered, what: string): DriverOutcome {
    const why = `IonQ answered ${r.status} to ${what}: ${describeIonqError(r.body)}`;
    if (r.status === 401 || r.status === 403) return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_AUTH_FAILED, message: why };
    if (r.status === 429 || r.status >= 500) return { state: 'retry', message: why, ...(r.retryAfterMs === null ? {} : { retryAfterMs: r.retryAfterMs }) };
    return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_REJECTED, message: why };
  }

  private static malformed(what: string, body: unknown): DriverOutcome {
    const shown = typeof body === 'string' ? body.slice(0, 120) : JSON.stringify(body ?? null).slice(0, 120);
    return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_MALFORMED_RESPONSE, message: `IonQ answered ${what} with a body we cannot read: ${shown}` };
  }

  /** The job-creation body (exported through `requestBody` for tests that check the shape). */
  requestBody(input: RunInput): Record<string, unknown> {
    const simulator = this.s.target === 'simulator';
    return {
      type: 'ionq.circuit.v1',
      backend: this.s.target,
      shots: input.shots,
      name: `qrail-${input.jobId}`,
      metadata: { [CLIENT_TAG_KEY]: input.jobId },
      input: this.s.gateset === 'native' ? toIonqNativeInput(input.circuit, ionqTwoQubitNative(this.s.target, this.s.noiseModel)).input : toIonqInput(input.circuit),
      // Noise applies to the simulator only; its seed is the job's, so a rerun is reproducible (int32 per the API).
      ...(simulator && this.s.noiseModel !== undefined ? { noise: { model: this.s.noiseModel, seed: input.seed % 2 ** 31 } } : {}),
      // IonQ may debias QPU jobs by default: sent explicitly, so the counts are raw unless the user
      // asked for IonQ's debiasing (`mitigation: {debiasing: true}`), and the answer says which
      // (docs/decisions/execution-mitigation-native.md).
      ...(simulator ? {} : { settings: { error_mitigation: { debiasing: input.hardware?.options.hardware.mitigation?.debiasing === true } } }),
    };
  }

  async submit(input: RunInput): Promise<DriverOutcome> {
    let body: Record<string, unknown>;
    try {
      body = this.requestBody(input);
    } catch (e) {
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_REJECTED, message: `The circuit cannot be written for IonQ: ${(e as Error).message}` };
    }
    const r = await this.http.request('POST', '/jobs', body);
    if (r.kind === 'timeout')
      return {
        state: 'failed',
        code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN,
        message: `IonQ did not answer the submission within ${this.s.timeoutMs} ms; it may have been accepted, so it is not sent again.`,
      };
    if (r.kind === 'dropped')
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN, message: `The connection to IonQ failed during the submission (${r.message}); it is not sent again.` };
    if (r.kind === 'refused') return this.notAnswered(r);
    if (r.status < 200 || r.status >= 300) return IonqDriver.refused(r, 'the submission');
    // Accepted (2xx) but no readable id: the job may exist at IonQ, so this is uncertain, not a refusal.
    if (!isObject(r.body) || typeof r.body['id'] !== 'string' || r.body['id'] === '')
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN, message: 'IonQ accepted the submission but returned no job id; it is not sent again.' };
    const status = r.body['status'];
    return { state: 'pending', remoteJobId: r.body['id'], remoteStatus: typeof status === 'string' ? status : 'submitted' };
  }

  async poll(remoteJobId: string, input: RunInput): Promise<DriverOutcome> {
    const id = encodeURIComponent(remoteJobId);
    const r = await this.http.request('GET', `/jobs/${id}`);
    if (r.kind !== 'ok') return this.notAnswered(r);
    if (r.status < 200 || r.status >= 300) return IonqDriver.refused(r, `GET /jobs/${remoteJobId}`);
    if (!isObject(r.body) || typeof r.body['status'] !== 'string') return IonqDriver.malformed(`GET /jobs/${remoteJobId}`, r.body);
    const job = r.body;
    const status = job['status'] as string;
    if (status === 'failed' || status === 'canceled') {
      const f = isObject(job['failure']) ? job['failure'] : {};
      // v0.4 says {code, message}; older answers said {code, error}: both are read (it costs nothing).
      const code = typeof f['code'] === 'string' ? f['code'] : null;
      const text = typeof f['message'] === 'string' ? f['message'] : typeof f['error'] === 'string' ? f['error'] : null;
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_JOB_FAILED, message: `IonQ job ${remoteJobId} ${status}${code ? ` (${code})` : ''}${text ? `: ${text}` : ''}.` };
    }
    if (status !== 'completed') return { state: 'pending', remoteJobId, remoteStatus: PENDING.has(status) ? status : `unknown:${status.slice(0, 40)}` };
    return this.results(remoteJobId, input);
  }

  /** A completed job's results: IonQ's probabilities, made counts of the job's shots. */
  private async results(remoteJobId: string, input: RunInput): Promise<DriverOutcome> {
    const path = `/jobs/${encodeURIComponent(remoteJobId)}/results/probabilities`;
    const r = await this.http.request('GET', path);
    if (r.kind !== 'ok') return this.notAnswered(r);
    if (r.status < 200 || r.status >= 300) return IonqDriver.refused(r, `GET ${path}`);
    const states = readStateMap(r.body);
    if (states === null || states.size === 0) return IonqDriver.malformed(`GET ${path}`, r.body);
    const counts = probabilitiesToCounts(states, input.circuit, input.shots);
    const meta = { remote_provider: 'ionq', remote_job_id: remoteJobId, target: this.s.target, counts_source: 'ionq probabilities × shots, largest remainder' };
    // A run with mitigation asked (IonQ's debiasing: the only kind a plan lets through here) says so beside the counts.
    const hw = input.hardware;
    if (hw?.options.hardware.mitigation !== undefined) {
      const asked = hardwareResultJson(hw.options, [counts], undefined, { circuits: hw.circuits, readout: null });
      return { state: 'completed', result: { counts: asked.counts, notes: asked.notes, extra: asked.extra, probabilitiesKind: 'estimated', meta } };
    }
    return { state: 'completed', result: { counts, probabilitiesKind: 'estimated', meta } };
  }

  /** Asks IonQ to stop the job; the next poll says whether it stopped (`canceled`) or had already finished. */
  async cancel(remoteJobId: string): Promise<boolean> {
    const r = await this.http.request('PUT', `/jobs/${encodeURIComponent(remoteJobId)}/status/cancel`);
    return r.kind === 'ok' && r.status >= 200 && r.status < 300;
  }

  /**
   * Reads the newest jobs (up to `lookupPages` pages of 100) for one carrying our tag. `absent`
   * only when the whole list was read; a list that goes on past the pages read, or any failure,
   * is `unknown` (never guess absent: that would resend a job IonQ may be running).
   */
  async findSubmitted(jobId: string): Promise<{ readonly found: 'present'; readonly remoteJobId: string } | { readonly found: 'absent' } | { readonly found: 'unknown' }> {
    let next: string | null = null;
    for (let page = 0; page < (this.s.lookupPages ?? 5); page++) {
      const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (next !== null) q.set('next', next);
      const r = await this.http.request('GET', `/jobs?${q.toString()}`);
      if (r.kind !== 'ok' || r.status !== 200 || !isObject(r.body) || !Array.isArray(r.body['jobs'])) return { found: 'unknown' };
      for (const j of r.body['jobs'] as unknown[]) {
        if (!isObject(j) || typeof j['id'] !== 'string') continue;
        const meta = isObject(j['metadata']) ? j['metadata'] : {};
        if (meta[CLIENT_TAG_KEY] === jobId || j['name'] === `qrail-${jobId}`) return { found: 'present', remoteJobId: j['id'] };
      }
      const n = r.body['next'];
      if (typeof n !== 'string' || n === '') return { found: 'absent' };
      next = n;
    }
    return { found: 'unknown' };
  }

  async liveStatus(): Promise<{ status: DeviceStatus; detail: string } | null> {
    const r = await this.http.request('GET', '/backends');
    if (r.kind !== 'ok' || r.status !== 200 || !Array.isArray(r.body)) return null;
    const b = (r.body as unknown[]).find((x) => isObject(x) && x['backend'] === this.s.target) as Record<string, unknown> | undefined;
    if (b === undefined) return { status: 'offline', detail: `IonQ does not list the backend ${this.s.target}` };
    const st = typeof b['status'] === 'string' ? b['status'] : 'unknown';
    return { status: ionqStatus(st), detail: `IonQ reports ${this.s.target} ${st}${b['degraded'] === true ? ' (degraded)' : ''}` };
  }
}

/** IonQ backend status → ours: available runs; calibrating is maintenance; unavailable, retired and anything else are offline. */
export function ionqStatus(st: string): DeviceStatus {
  return st === 'available' ? 'online' : st === 'calibrating' ? 'maintenance' : 'offline';
}
