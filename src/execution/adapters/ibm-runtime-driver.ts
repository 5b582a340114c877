/**
 * Provider One's remote driver: IBM Quantum Runtime's REST contract (ibm-runtime-client.ts has
 * the auth). One Sampler V2 job per qrail job, one PUB per task (a job of an expectation has one
 * per measurement group; results come back in PUB order):
 *   POST   /v1/jobs                {program_id: "sampler", backend, params: {pubs: [[qasm3, null, shots]], version: 2}, tags}
 *   GET    /v1/jobs/{id}           {id, status: Queued|Running|Completed|Cancelled|Failed, state: {status, reason}}
 *   GET    /v1/jobs/{id}/results   {results: [{data: {<creg>: {samples: ["0x…"], num_bits}}}]}
 *   POST   /v1/jobs/{id}/cancel    204
 *   GET    /v1/jobs?tags=…&limit=… {jobs: [...]}   (findSubmitted: our tag = our job id)
 * The circuit it gets is already translated (native gates, physical qubits of the backend); it
 * is sent as an ISA circuit in OpenQASM 3 (ibm-qasm.ts: physical qubits `$n`, conditioned gates as
 * `if` blocks, one classical register `c`, so each sample's bit i is clbit i, and counts keep the
 * documented order, clbit 0 rightmost). Every PUB's text is first checked against the backend's
 * ISA with the rules qiskit-ibm-runtime applies before it submits (ibm-isa-check.ts); a text that
 * breaks one fails the job with REMOTE_CIRCUIT_NOT_ISA and nothing is sent. The per-shot samples are kept in
 * the result's meta (`memory`, as IBM gives them) and, when `memory` is asked for, returned as
 * clbit strings in shot order (docs/execution.md#results-on-hardware).
 *
 * Exactly-once: a submission is sent at most once by this driver; a timeout or a dropped
 * connection after sending is REMOTE_SUBMISSION_UNCERTAIN, which the worker settles with
 * `findSubmitted` before anything is sent again.
 */
import type { DeviceStatus } from '../../devices/device-catalogue.js';
import type { DeviceDriver, DriverOutcome, RunInput } from '../drivers/driver.js';
import { EXECUTION_FAILURE } from '../error-codes.js';
import { hardwareResultJson } from '../hardware-workload.js';
import { readoutCalibration } from '../mitigation/readout-calibration.js';
import { describeIbmError, type IbmHttp, type IbmRuntimeClient } from './ibm-runtime-client.js';
import { checkIbmIsa } from './ibm-isa-check.js';
import { specIsaTarget } from './ibm-isa-target.js';
import { toIbmQasm3 } from './ibm-qasm.js';

/** The tag that names our job at IBM: findSubmitted searches by it. */
export const ibmJobTag = (jobId: string): string => `qrail-job:${jobId}`;

/** At most this many samples are kept per result (per-shot data beyond it is dropped, counts are complete). */
const MEMORY_LIMIT = 100_000;

type Ok = Extract<IbmHttp, { kind: 'ok' }>;

/** Sampler V2 samples (hex or integer strings) as counts over `numClbits` bits, clbit 0 rightmost. */
export function samplesToCounts(samples: readonly unknown[], numClbits: number): Record<string, number> | null {
  const counts: Record<string, number> = {};
  const mask = (1n << BigInt(numClbits)) - 1n;
  for (const s of samples) {
    let v: bigint;
    try {
      if (typeof s === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(s)) v = BigInt(s);
      else if (typeof s === 'number' && Number.isInteger(s) && s >= 0) v = BigInt(s);
      else return null;
    } catch {
      return null;
    }
    if ((v & mask) !== v) return null;
    const key = v.toString(2).padStart(numClbits, '0');
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export class IbmRuntimeDriver implements DeviceDriver {
  readonly kind = 'remote' as const;

  constructor(
    private readonly client: IbmRuntimeClient,
    /** Catalogue device → IBM backend name. */
    private readonly backends: Readonly<Record<string, string>>,
  ) {}

  private backendOf(input: RunInput): string | undefined {
    return this.backends[input.device.spec.id];
  }

  /** Outcome of an answer that is not 2xx. */
  private static refused(r: Ok, what: string): DriverOutcome {
    const why = `IBM Quantum answered ${r.status} to ${what}: ${describeIbmError(r.body)}`;
    if (r.status === 401 || r.status === 403) return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_AUTH_FAILED, message: why };
    if (r.status === 429 || r.status >= 500) return { state: 'retry', message: why, ...(r.retryAfterMs === null ? {} : { retryAfterMs: r.retryAfterMs }) };
    return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_REJECTED, message: why };
  }

  private unreachable(r: Exclude<IbmHttp, Ok>): DriverOutcome {
    return { state: 'retry', message: r.kind === 'timeout' ? `IBM Quantum did not answer within ${this.client.timeoutMs} ms.` : `IBM Quantum could not be reached (${r.message}).` };
  }

  async submit(input: RunInput): Promise<DriverOutcome> {
    const backend = this.backendOf(input);
    if (backend === undefined) return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_REJECTED, message: `No IBM backend is mapped to ${input.device.spec.id} (IBM_QUANTUM_BACKENDS).` };
    // One PUB per task: the circuit, or a hardware job's task circuits (an expectation's groups).
    const circuits = input.hardware?.circuits ?? [input.circuit];
    if (circuits.some((c) => c.numClbits === 0))
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_REJECTED, message: 'The circuit measures nothing; the Sampler needs at least one measurement.' };
    const texts = circuits.map(toIbmQasm3);
    const target = specIsaTarget(input.device.spec, backend);
    for (const [t, text] of texts.entries()) {
      const v = checkIbmIsa(text, target);
      if (v === null) continue;
      const which = texts.length > 1 ? ` (PUB ${t})` : '';
      return {
        state: 'failed',
        code: EXECUTION_FAILURE.REMOTE_CIRCUIT_NOT_ISA,
        message: `Not sent: the circuit${which} is not an ISA circuit of ${backend} (${v.rule}, line ${v.line}: ${v.message}).`,
      };
    }
    const body = {
      program_id: 'sampler',
      backend,
      params: { pubs: texts.map((text) => [text, null, input.shots]), version: 2 },
      tags: [ibmJobTag(input.jobId)],
    };
    const r = await this.client.request('POST', '/v1/jobs', body);
    if (r.kind === 'timeout')
      return {
        state: 'failed',
        code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN,
        message: `IBM Quantum did not answer the submission within ${this.client.timeoutMs} ms; it may have been accepted.`,
      };
    if (r.kind === 'dropped') return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN, message: `The connection to IBM Quantum failed during the submission (${r.message}).` };
    if (r.kind === 'refused') return { state: 'retry', message: `IBM Quantum could not be reached (${r.message}).` };
    if (r.status < 200 || r.status >= 300) return IbmRuntimeDriver.refused(r, 'the submission');
    const b = r.body as { id?: unknown } | null;
    if (b === null || typeof b !== 'object' || typeof b.id !== 'string' || b.id === '') {
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_SUBMISSION_UNCERTAIN, message: 'IBM Quantum accepted the submission but its answer has no job id.' };
    }
    return { state: 'pending', remoteJobId: b.id, remoteStatus: 'Queued' };
  }

  async poll(remoteJobId: string, input: RunInput): Promise<DriverOutcome> {
    const id = encodeURIComponent(remoteJobId);
    const r = await this.client.request('GET', `/v1/jobs/${id}?exclude_params=true`);
    if (r.kind !== 'ok') return this.unreachable(r);
    if (r.status < 200 || r.status >= 300) return IbmRuntimeDriver.refused(r, `GET /v1/jobs/${remoteJobId}`);
    const job = r.body as { status?: unknown; state?: { status?: unknown; reason?: unknown } } | null;
    const status = typeof job?.state?.status === 'string' ? job.state.status : typeof job?.status === 'string' ? job.status : null;
    if (status === null) return { state: 'retry', message: `IBM Quantum's answer for job ${remoteJobId} has no status.` };
    const reason = typeof job?.state?.reason === 'string' ? `: ${job.state.reason}` : '';
    // IBM writes `Completed`, qiskit-ibm-runtime upper-cases what it reads: compare without case.
    const st = status.toUpperCase();
    if (st === 'FAILED' || /^CANCELL?ED/.test(st)) {
      return { state: 'failed', code: EXECUTION_FAILURE.REMOTE_JOB_FAILED, message: `IBM Quantum job ${remoteJobId} ${status}${reason}.` };
    }
    if (st !== 'COMPLETED') return { state: 'pending', remoteJobId, remoteStatus: status };
    return this.results(remoteJobId, input);
  }

  /** Results of a completed job (fetched once: the worker stores them with the job's completion). */
  private async results(remoteJobId: string, input: RunInput): Promise<DriverOutcome> {
    const res = await this.client.request('GET', `/v1/jobs/${encodeURIComponent(remoteJobId)}/results`);
    if (res.kind !== 'ok') return this.unreachable(res);
    if (res.status < 200 || res.status >= 300) return IbmRuntimeDriver.refused(res, `GET /v1/jobs/${remoteJobId}/results`);
    const malformed = (why: string): DriverOutcome => ({ state: 'failed', code: EXECUTION_FAILURE.REMOTE_JOB_FAILED, message: `IBM Quantum returned results qrail cannot read (${why}).` });
    const body = res.body as { results?: Array<{ data?: Record<string, { samples?: unknown; num_bits?: unknown }> }> } | null;
    // One PUB per task (an expectation's groups follow the circuit): result t is task t's.
    const circuits = input.hardware?.circuits ?? [input.circuit];
    const counts: Record<string, number>[] = [];
    let first: unknown[] = [];
    for (const [t, circuit] of circuits.entries()) {
      const data = body?.results?.[t]?.data?.['c'];
      const which = circuits.length > 1 ? ` of PUB ${t}` : '';
      if (data === undefined || !Array.isArray(data.samples)) return malformed(`no samples for register c${which}`);
      const n = circuit.numClbits;
      if (typeof data.num_bits === 'number' && data.num_bits !== n) return malformed(`${data.num_bits} bits${which}, expected ${n}`);
      const c = samplesToCounts(data.samples, n);
      if (c === null) return malformed(`a sample${which} is not a bit pattern of the register`);
      if (data.samples.length !== input.shots) return malformed(`${data.samples.length} samples${which} for ${input.shots} shots`);
      counts.push(c);
      if (t === 0) first = data.samples as unknown[];
    }
    const backend = this.backendOf(input) ?? null;
    // Result types asked for: memory is the first PUB's samples in shot order as clbit strings (clbit 0 rightmost).
    const hw = input.hardware;
    const n0 = circuits[0]!.numClbits;
    const asked =
      hw === undefined
        ? undefined
        : hardwareResultJson(
            hw.options,
            counts,
            hw.options.hardware.plain
              ? first.map((s) =>
                  BigInt(s as string | number)
                    .toString(2)
                    .padStart(n0, '0'),
                )
              : undefined,
            // Readout mitigation inverts the provider's latest per-qubit figures of the qubits each PUB measured.
            { circuits: hw.circuits, readout: readoutCalibration(input.device) },
          );
    return {
      state: 'completed',
      result: {
        counts: asked?.counts ?? counts[0]!,
        ...(asked === undefined ? {} : { notes: asked.notes, extra: asked.extra }),
        probabilitiesKind: 'estimated',
        meta: {
          remote_provider: 'ibm',
          remote_job_id: remoteJobId,
          target: backend,
          // Shot-ordered samples, as hex strings like IBM's (clbit i = bit i).
          memory: first.slice(0, MEMORY_LIMIT).map((s) => (typeof s === 'number' ? `0x${s.toString(16)}` : String(s))),
        },
      },
    };
  }

  /** Asks IBM to stop the job; the next poll says whether it stopped (Cancelled) or had finished. */
  async cancel(remoteJobId: string): Promise<boolean> {
    const r = await this.client.request('POST', `/v1/jobs/${encodeURIComponent(remoteJobId)}/cancel`);
    return r.kind === 'ok' && r.status >= 200 && r.status < 300;
  }

  async findSubmitted(jobId: string): Promise<{ found: 'present'; remoteJobId: string } | { found: 'absent' } | { found: 'unknown' }> {
    const q = new URLSearchParams({ tags: ibmJobTag(jobId), limit: '10', exclude_params: 'true' });
    const r = await this.client.request('GET', `/v1/jobs?${q.toString()}`);
    if (r.kind !== 'ok' || r.status !== 200) return { found: 'unknown' };
    const jobs = (r.body as { jobs?: unknown } | null)?.jobs;
    if (!Array.isArray(jobs)) return { found: 'unknown' };
    // The filter is IBM's; the tag is checked again so a job without it is never adopted.
    const mine = jobs.find((j: { id?: unknown; tags?: unknown }) => typeof j?.id === 'string' && Array.isArray(j.tags) && j.tags.includes(ibmJobTag(jobId))) as { id: string } | undefined;
    return mine === undefined ? { found: 'absent' } : { found: 'present', remoteJobId: mine.id };
  }

  /** Not used for status (the snapshot cache serves it); kept for a direct probe of one backend. */
  async backendStatus(backend: string): Promise<{ status: DeviceStatus; detail: string; queueLength: number | null } | null> {
    const r = await this.client.request('GET', `/v1/backends/${encodeURIComponent(backend)}/status`);
    if (r.kind !== 'ok' || r.status !== 200) return null;
    return ibmStatus(backend, r.body);
  }
}

/** IBM's backend status body ({state, status, message, length_queue}) in the directory's terms. */
export function ibmStatus(backend: string, body: unknown): { status: DeviceStatus; detail: string; queueLength: number | null } | null {
  const b = body as { state?: unknown; status?: unknown; message?: unknown; length_queue?: unknown } | null;
  if (b === null || typeof b !== 'object') return null;
  const st = typeof b.status === 'string' ? b.status : 'unknown';
  const lower = st.toLowerCase();
  const operational = b.state === true && lower === 'active';
  const status: DeviceStatus = operational ? 'online' : lower === 'maintenance' || lower === 'internal' ? 'maintenance' : 'offline';
  const msg = typeof b.message === 'string' && b.message !== '' ? ` (${b.message})` : '';
  return { status, detail: `IBM Quantum reports ${backend} ${st}${msg}`, queueLength: typeof b.length_queue === 'number' ? b.length_queue : null };
}
