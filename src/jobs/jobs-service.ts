/**
 * The four operations of the Account Jobs interface (spec §4.1) minus HTTP: submit, list,
 * get, balance, plus the live catalog. Validation and quoting happen here; the one
 * submission transaction is the repository's.
 */
import { fail, isAppError, type ErrorDetail } from '../errors/app-error.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';
import { formatMicros, parseUsd } from '../billing/money.js';
import type { Availability, Capability, CapabilityRegistry } from './capability.js';
import { canonicalJson } from '../kernel/canonical-json.js';
import { given, keysetPage, pageBounds, pageSize, type PageRequest } from '../kernel/list-cursor.js';
import type { CancelRequests } from '../queue/cancel-requests.js';
import { JOBS_ERRORS } from './error-codes.js';
import { PAYMENT_RAIL, jobView, type JobRecord, type JobStatus } from './job.js';
import type { JobsBillingPort, JobsRepository } from './ports.js';
import { RequestValidator } from './request-validator.js';

export const MAX_TOTAL_PRICE_MICROS = 1_000_000n;
export { LIST_DEFAULT, LIST_MAX } from '../kernel/list-cursor.js';

export interface SubmitJobBody {
  readonly capability_id: string;
  readonly request: Record<string, unknown>;
  readonly idempotency_key: string;
  readonly max_total_price: string;
  /** At most 16 keys → short strings (bounded by the route's schema). */
  readonly tags?: Readonly<Record<string, string>>;
}

/** The query of GET /v1/jobs (validated by the route's schema). */
export interface JobListRequest extends PageRequest {
  readonly idempotencyKey?: string | undefined;
  readonly status?: JobStatus | undefined;
  readonly capabilityId?: string | undefined;
  /** `key:value` each; every one must match. */
  readonly tags?: readonly string[] | undefined;
}

export interface JobsSettings {
  readonly publicBaseUrl: string;
  /** Lifetime of a job's hold; a job not charged by then fails as HOLD_EXPIRED. */
  readonly holdTtlSeconds: number;
}

export interface Agent {
  readonly accountId: string;
  readonly subject: string;
}

function prefixed(details: unknown, root: string): unknown {
  if (!Array.isArray(details)) return details;
  return details.map((d: ErrorDetail) => (typeof d?.path === 'string' ? { ...d, path: root + d.path } : d));
}

/** `key:value` (split at the first colon: keys have none) of a `tag` filter. */
function parseTag(t: string): { key: string; value: string } {
  const i = t.indexOf(':');
  return { key: t.slice(0, i), value: t.slice(i + 1) };
}

export class JobsService {
  private readonly validator = new RequestValidator();

  constructor(
    private readonly repo: JobsRepository,
    readonly capabilities: CapabilityRegistry,
    private readonly settings: JobsSettings,
    private readonly hash: (s: string) => string,
    private readonly newId: () => string,
    private readonly now: () => Date = () => new Date(),
    /** Without it (CLI, tests) a requested recharge waits for the billing worker. */
    private readonly billing?: JobsBillingPort,
    /** Cancel requests delivered at once to this process's worker (others see them at their next heartbeat). */
    private readonly cancels?: CancelRequests,
  ) {}

  /** `GET /v1/catalog`: every capability with its pricing rule, request schema and whether it can run now. */
  async catalog(): Promise<Record<string, unknown>[]> {
    return Promise.all(this.capabilities.list().map(async (c) => ({ ...this.catalogEntry(c), ...availabilityView(await availabilityOf(c)) })));
  }

  catalogEntry(c: Capability): Record<string, unknown> {
    let examplePrice: string | undefined;
    try {
      examplePrice = formatMicros(c.quote(c.prepare(c.example)).priceMicros);
    } catch {
      examplePrice = undefined;
    }
    return {
      capability_id: c.id,
      product: c.product,
      title: c.title,
      description: c.description,
      payment_rail: PAYMENT_RAIL,
      pricing: { currency: 'USD', formula: c.pricing.formula, parameters: c.pricing.parameters, ...(examplePrice === undefined ? {} : { example_price: examplePrice }) },
      request_schema: c.requestSchema,
      example: { capability_id: c.id, request: c.example, idempotency_key: 'example-0001', max_total_price: '1.000000' },
      on_interrupted: c.onInterrupted,
    };
  }

  /** `requestId`: the submitting HTTP request's id, carried by the reservation's audit event. */
  async submit(agent: Agent, body: SubmitJobBody, requestId?: string): Promise<{ job: JobRecord; replayed: boolean }> {
    const problems: ErrorDetail[] = [];
    const maxMicros = parseUsd(body.max_total_price);
    if (maxMicros > MAX_TOTAL_PRICE_MICROS) {
      problems.push({ in: 'body', path: '/max_total_price', code: 'TOO_LARGE', message: 'must be at most 1.000000 (USD)' });
    }
    const cap = this.capabilities.get(body.capability_id);
    if (cap === undefined) {
      throw fail(JOBS_ERRORS.UNKNOWN_CAPABILITY, `No capability "${body.capability_id}" in the catalog; see GET /v1/catalog.`, [
        { in: 'body', path: '/capability_id', code: JOBS_ERRORS.UNKNOWN_CAPABILITY.code, message: 'is not in the live catalog', known: this.capabilities.list().map((c) => c.id) },
        ...problems,
      ]);
    }
    problems.push(...this.validator.check(cap.validationSchema ?? cap.requestSchema, body.request));
    if (problems.length > 0) throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'The job submission is invalid.', problems);
    // Before anything is reserved: a job that could not run now would only hold funds until it failed.
    const availability = await availabilityOf(cap);
    if (!availability.available) {
      throw fail(JOBS_ERRORS.CAPABILITY_UNAVAILABLE, `${cap.id} cannot run on this deployment now: ${availability.reason} Nothing was reserved.`, { reason: availability.reason });
    }

    let prepared: unknown;
    try {
      prepared = cap.prepare(body.request);
    } catch (e) {
      if (isAppError(e) && e.statusCode === 400) throw fail({ code: e.code, status: 400, description: '' }, e.message, prefixed(e.details, '/request'));
      throw e;
    }
    const q = cap.quote(prepared);
    const now = this.now();
    const quote = {
      price: formatMicros(q.priceMicros),
      currency: 'USD',
      formula: cap.pricing.formula,
      breakdown: q.breakdown,
      max_total_price: formatMicros(maxMicros),
      quoted_at: now.toISOString(),
    };
    // Same meaning → same hash: key order and "0.5" vs "0.500000" do not matter. Tags count
    // when there are any, so a key used before tags existed still names its job.
    const tags = body.tags ?? {};
    const tagged = Object.keys(tags).length > 0;
    const requestHash = this.hash(canonicalJson({ capability_id: body.capability_id, request: body.request, max_total_price: maxMicros.toString(), ...(tagged ? { tags } : {}) }));
    const { job, replayed, rechargeRequested } = await this.repo.submit({
      id: this.newId(),
      accountId: agent.accountId,
      idempotencyKey: body.idempotency_key,
      requestHash,
      capabilityId: cap.id,
      product: cap.product,
      request: body.request,
      maxTotalPriceMicros: maxMicros,
      quotedPriceMicros: q.priceMicros,
      quote,
      holdExpiresAt: new Date(now.getTime() + this.settings.holdTtlSeconds * 1000),
      submittedBy: agent.subject,
      tags,
      requestId: requestId ?? null,
    });
    // Committed (jobs_submit is its own transaction). Only when the hold left the wallet
    // asking for a recharge, start it now rather than at the billing worker's next tick;
    // the flag stays in the wallet, so the worker still serves it if this never runs.
    if (rechargeRequested && this.billing !== undefined) {
      try {
        this.billing.afterDebit(agent.accountId);
      } catch {
        // The job exists: a failing hook must not turn its 202 into an error.
      }
    }
    return { job, replayed };
  }

  async get(accountId: string, jobId: string): Promise<JobRecord> {
    const j = await this.repo.get(accountId, jobId);
    // Another account's job is indistinguishable from a missing one.
    if (j === null) throw fail(JOBS_ERRORS.JOB_NOT_FOUND, `No job ${jobId} is available to this agent.`);
    return j;
  }

  /** GET /v1/jobs: newest first, every filter given must match, keyset pages of at most 100. */
  async list(accountId: string, q: JobListRequest): Promise<{ jobs: JobRecord[]; nextCursor: string | null; hasMore: boolean }> {
    const filters = {
      ...given({ idempotencyKey: q.idempotencyKey, status: q.status, capabilityId: q.capabilityId }),
      ...(q.tags === undefined || q.tags.length === 0 ? {} : { tags: q.tags.map(parseTag) }),
      ...pageBounds(q),
    };
    const page = await keysetPage(
      pageSize(q.limit),
      (limit) => this.repo.list(accountId, { ...filters, limit }),
      (j) => j,
    );
    return { jobs: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore };
  }

  /** The submitting request's trace, stored with the job so its worker's span continues it (tracing on only). */
  continueTrace(jobId: string, traceparent: string): Promise<void> {
    return this.repo.saveTraceparent(jobId, traceparent);
  }

  /**
   * POST /v1/jobs/{job_id}/cancel (docs/jobs.md#canceling): a job not yet running is failed /
   * CANCELED now, its reservation released; a running one is asked to stop (its worker ends it
   * so). 200 with the job as it is now; 409 JOB_NOT_CANCELABLE once it ended another way.
   * `requestId`: the cancel request's id, carried by the release's audit event (a running job's
   * release is the worker's and carries none).
   */
  async cancel(accountId: string, jobId: string, requestId?: string): Promise<JobRecord> {
    const r = await this.repo.cancel(accountId, jobId, requestId);
    if (r === null) throw fail(JOBS_ERRORS.JOB_NOT_FOUND, `No job ${jobId} is available to this agent.`);
    if (r.outcome === 'not_cancelable') {
      const why = r.job.status === 'result_saved' ? 'its result is saved and it is being charged' : `it already ended ${r.job.status}${r.job.errorCode === null ? '' : ` (${r.job.errorCode})`}`;
      throw fail(JOBS_ERRORS.JOB_NOT_CANCELABLE, `The job cannot be canceled: ${why}.`, { job_id: r.job.id, status: r.job.status });
    }
    // Committed: the worker running it, if in this process, stops at once (else at its next heartbeat).
    if (r.outcome === 'requested') this.cancels?.request(jobId);
    return r.job;
  }

  async balance(accountId: string): Promise<Record<string, unknown>> {
    const b = await this.repo.balance(accountId);
    return {
      account_id: accountId,
      currency: 'USD',
      payment_rail: PAYMENT_RAIL,
      available: formatMicros(b.availableMicros),
      held: formatMicros(b.heldMicros),
      total: formatMicros(b.availableMicros + b.heldMicros),
      as_of: this.now().toISOString(),
    };
  }

  view(j: JobRecord): Record<string, unknown> {
    return jobView(j, this.settings.publicBaseUrl);
  }
}

/** A capability's availability; one that cannot tell counts as unavailable, with why. */
async function availabilityOf(c: Capability): Promise<Availability> {
  if (c.availability === undefined) return { available: true };
  try {
    return await c.availability();
  } catch (e) {
    return { available: false, reason: `its readiness could not be checked (${e instanceof Error ? e.message : String(e)}).` };
  }
}

function availabilityView(a: Availability): { available: boolean; unavailable_reason: string | null } {
  return a.available ? { available: true, unavailable_reason: null } : { available: false, unavailable_reason: a.reason };
}
