import type { Circuit } from '../circuits/ir.js';
import type { WireCircuitV02 } from '../circuits/wire-format.js';
import type { CouplingReport, CouplingRequest, CouplingSettings } from '../coupling/analyze-coupling.js';
import type { EntangledPairsResult } from '../circuits/analysis/analyze.js';
import type { CircuitMetrics } from '../optimization/metrics.js';
import type { BackendHint, ProofMethod, Profile } from '../optimization/optimize.js';
import type { Method, MethodOptions, MethodResult } from '../simulation/index.js';
import type { ListPosition } from '../kernel/list-cursor.js';
import type { CancelOutcome } from '../queue/cancel-requests.js';
import type { QueueClaim, QueuePort } from '../queue/queue-worker.js';
import type { JobCharge, Product } from './capability.js';
import type { JobRecord, JobStatus } from './job.js';

/** What the jobs domain needs from billing (src/billing/billing-service.ts implements it). */
export interface JobsBillingPort {
  /** Starts a requested auto-recharge in the background; call after the debit committed. Never throws. */
  afterDebit(accountId: string): void;
}

/** What `circuit.optimize` reads back from an optimization (the circuit as wire format 0.2). */
export interface JobOptimizeOutcome {
  readonly circuit: WireCircuitV02;
  readonly metricsBefore: CircuitMetrics;
  readonly metricsAfter: CircuitMetrics;
  readonly passes: readonly string[];
  readonly methods: readonly ProofMethod[];
  readonly certificate: { readonly digest: string; readonly stepCount: number; readonly globalSteps: number };
  readonly timedOut: boolean;
  readonly notes: readonly string[];
}

export interface JobSimulateOptions {
  readonly shots: number;
  readonly seed?: number;
  readonly maxQubits: number;
  readonly maxProbabilityEntries: number;
  /** The simulation method (absent: the state vector) and its options. */
  readonly method?: Method;
  readonly methodOptions?: MethodOptions;
}

/**
 * The CPU-heavy work of the built-in capabilities (up to a minute for an aggressive optimize).
 * The composition root runs it on the compute pool, off the event loop the HTTP API shares
 * (src/jobs/compose.ts; in-process for COMPUTE_THREADS=0). A domain error (AppError) comes back
 * unchanged and fails the job with its code; anything else, a lost thread included, is unexpected.
 * An aborted `signal` (the job's cancel) drops or stops the task: it rejects with COMPUTE_CANCELED.
 */
export interface JobsComputePort {
  optimize(circuit: Circuit, opts: { readonly profile: Profile; readonly backendHint: BackendHint }, signal?: AbortSignal): Promise<JobOptimizeOutcome>;
  /** Measured or auto coupling (qualitative stays in-process: linear in the gates). */
  analyzeCoupling(circuit: Circuit, request: CouplingRequest, settings: CouplingSettings, signal?: AbortSignal): Promise<CouplingReport>;
  simulate(circuit: Circuit, opts: JobSimulateOptions, signal?: AbortSignal): Promise<MethodResult>;
  /** The entanglement probe of circuit analysis (a simulation, for circuits it does simulate). */
  entangledPairs(circuit: Circuit, signal?: AbortSignal): Promise<EntangledPairsResult>;
}

/** How submissions are committed together (src/store/jobs/group-commit.ts). */
export interface SubmitBatching {
  /** Most submissions sent in one transaction (1: each on its own). */
  readonly maxBatch: number;
  /** Most submission transactions at once. */
  readonly maxInFlight: number;
}

/** JOBS_SUBMIT_BATCH_MAX and JOBS_SUBMIT_IN_FLIGHT when not set. */
export const DEFAULT_SUBMIT_BATCHING: SubmitBatching = { maxBatch: 16, maxInFlight: 2 };

export interface SubmitInput {
  readonly id: string;
  readonly accountId: string;
  readonly idempotencyKey: string;
  readonly requestHash: string;
  readonly capabilityId: string;
  readonly product: Product;
  readonly request: Readonly<Record<string, unknown>>;
  readonly maxTotalPriceMicros: bigint;
  readonly quotedPriceMicros: bigint;
  readonly quote: Readonly<Record<string, unknown>>;
  readonly holdExpiresAt: Date;
  readonly submittedBy: string;
  /** Already validated (at most 16 keys of short strings); empty when none. */
  readonly tags: Readonly<Record<string, string>>;
  /** The id of the HTTP request that submits: the reservation's money event in the audit log carries it. */
  readonly requestId?: string | null | undefined;
}

/** The filters of GET /v1/jobs, all optional, all of which must match. */
export interface ListQuery {
  readonly idempotencyKey?: string;
  readonly status?: JobStatus;
  readonly capabilityId?: string;
  /** Created at or after / strictly before, in µs since the epoch. */
  readonly createdAfterMicros?: bigint;
  readonly createdBeforeMicros?: bigint;
  /** Every one of these key = value tags. */
  readonly tags?: ReadonlyArray<{ readonly key: string; readonly value: string }>;
  readonly limit: number;
  /** Keyset: strictly older than this (created_at, id) pair. */
  readonly before?: ListPosition;
}

export interface Claim extends QueueClaim {
  readonly job: JobRecord;
  /** The status before this claim: `queued`, or `running` / `result_saved` when a lease expired (or a canceled job was parked). */
  readonly previousStatus: 'queued' | 'running' | 'result_saved';
  /** Status of the job's hold when claimed (`pending` unless it expired meanwhile). */
  readonly holdStatus: string | null;
}

/**
 * Storage port of the jobs domain (src/store/jobs/jobs-repository.ts). Each method is one
 * transaction; money moves through the billing ledger inside the same transaction. Its claim
 * and heartbeat are the one queue's (src/store/queue/pg-queue.ts).
 */
export interface JobsRepository extends QueuePort<Claim> {
  /**
   * DESIGN §4 submission after validation and quoting: idempotency lookup (same hash →
   * the original job, `replayed`; other hash → 409; concurrent → 409 in flight) → price
   * ceiling → spend controls and hold → job `queued`, transitions quoted/reserved/queued.
   * `rechargeRequested`: the hold left the wallet asking for an auto-recharge (its outbox
   * flag is set); always false for a replay, which moves no money.
   */
  submit(s: SubmitInput): Promise<{ job: JobRecord; replayed: boolean; rechargeRequested: boolean }>;
  get(accountId: string, id: string): Promise<JobRecord | null>;
  list(accountId: string, q: ListQuery): Promise<JobRecord[]>;
  /**
   * The cancel request, one transaction: a job not yet running ends failed / CANCELED with its
   * hold released and a receipt saying so; a running one gets `cancel_requested_at` (its worker
   * stops it). Null when the account has no such job.
   */
  cancel(accountId: string, id: string, requestId?: string): Promise<{ outcome: CancelOutcome; job: JobRecord } | null>;
  /** Remembers the submitting request's trace (W3C traceparent) so the worker's span continues it. */
  saveTraceparent(jobId: string, traceparent: string): Promise<void>;
  /**
   * running → failed / CANCELED by the lease holder once a cancel was requested: releases the
   * hold (nothing consumed: every capability is priced per result) and writes the receipt.
   * Null if the lease is lost or no cancel was requested.
   */
  finishCanceled(jobId: string, worker: string): Promise<JobRecord | null>;
  balance(accountId: string): Promise<{ availableMicros: bigint; heldMicros: bigint }>;

  /** Records the re-run of a `running` job whose previous worker lost its lease. */
  markRerun(jobId: string, worker: string): Promise<void>;
  /** running → result_saved if the lease is still this worker's. */
  /** `charge`: what completing will capture (≤ reserved) and the receipt's lines, when not the whole reservation (a batch). */
  saveResult(jobId: string, worker: string, result: Record<string, unknown>, leaseMs: number, charge?: JobCharge): Promise<boolean>;
  /** result_saved → completed: captures the hold (≤ reserved), writes the receipt. Null if the lease is lost. */
  complete(jobId: string, worker: string): Promise<JobRecord | null>;
  /** Any non-terminal → failed: releases the hold. Null if the lease is lost. */
  fail(jobId: string, worker: string | null, code: string, message: string): Promise<JobRecord | null>;
}
