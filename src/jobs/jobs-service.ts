/**
 * The four operations of the Account Jobs interface (spec §4.1) minus HTTP: submit, list,
 * get, balance, plus the live catalog. Validation and quoting happen here; the one
 * submission transaction is the repository's.
 */
import { fail, isAppError, type ErrorDetail } from '../errors/app-error.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';
import { formatMicros, parseUsd } from '../billing/money.js';
import type { Capability, CapabilityRegistry } from './capability.js';
import { canonicalJson } from '../kernel/canonical-json.js';
import { JOBS_ERRORS } from './error-codes.js';
import { PAYMENT_RAIL, jobView, type JobRecord } from './job.js';
import type { JobsBillingPort, JobsRepository } from './ports.js';
import { RequestValidator } from './request-validator.js';

export const MAX_TOTAL_PRICE_MICROS = 1_000_000n;
export const LIST_MAX = 100;
export const LIST_DEFAULT = 50;

export interface SubmitJobBody {
  readonly capability_id: string;
  readonly request: Record<string, unknown>;
  readonly idempotency_key: string;
  readonly max_total_price: string;
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

// Opaque keyset cursor: the (created_at in µs, id) of the last job of the page.
function encodeCursor(j: JobRecord): string {
  return Buffer.from(`${j.createdAtMicros.toString()}|${j.id}`, 'utf8').toString('base64url');
}

function decodeCursor(c: string): { createdAtMicros: bigint; id: string } {
  const [at, id] = Buffer.from(c, 'base64url').toString('utf8').split('|');
  if (at === undefined || !/^\d{1,20}$/.test(at) || id === undefined || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) {
    throw fail(JOBS_ERRORS.INVALID_CURSOR, 'The cursor is not one returned by GET /v1/jobs.', [
      { in: 'querystring', path: '/cursor', code: JOBS_ERRORS.INVALID_CURSOR.code, message: 'is not a valid cursor' },
    ]);
  }
  return { createdAtMicros: BigInt(at), id };
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
  ) {}

  /** `GET /v1/catalog`: every capability with its pricing rule and request schema. */
  catalog(): Record<string, unknown>[] {
    return this.capabilities.list().map((c) => this.catalogEntry(c));
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

  async submit(agent: Agent, body: SubmitJobBody): Promise<{ job: JobRecord; replayed: boolean }> {
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
    // Same meaning → same hash: key order and "0.5" vs "0.500000" do not matter.
    const requestHash = this.hash(canonicalJson({ capability_id: body.capability_id, request: body.request, max_total_price: maxMicros.toString() }));
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

  async list(accountId: string, q: { idempotencyKey?: string | undefined; limit?: number | undefined; cursor?: string | undefined }): Promise<{ jobs: JobRecord[]; nextCursor: string | null }> {
    const limit = Math.min(Math.max(q.limit ?? LIST_DEFAULT, 1), LIST_MAX);
    const before = q.cursor === undefined || q.cursor === '' ? undefined : decodeCursor(q.cursor);
    // One extra row tells whether there is a next page.
    const rows = await this.repo.list(accountId, { limit: limit + 1, ...(q.idempotencyKey === undefined ? {} : { idempotencyKey: q.idempotencyKey }), ...(before === undefined ? {} : { before }) });
    const jobs = rows.slice(0, limit);
    const last = jobs[jobs.length - 1];
    return { jobs, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last) : null };
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
