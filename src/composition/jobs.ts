/**
 * The Account Jobs part of the composition root (`src/services.ts` calls this): reads the
 * JOBS_* settings and wires the services to the store adapters it is given, the worker to the
 * one queue, and the capabilities' CPU-heavy work (optimize, measured coupling, simulate) to
 * the app's compute pool.
 */
import { createHash, randomUUID } from 'node:crypto';
import { CredentialService, type CredentialsRepository } from '../auth/credentials.js';
import { toWire, type CircuitLimits } from '../circuits/wire-format.js';
import { hardTimeoutFor, type ComputePool } from '../compute/compute-pool.js';
import { PROFILE_BUDGET_MS } from '../optimization/optimize.js';
import { DEFAULT_TIME_BUDGET_MS } from '../simulation/index.js';
import { ANALYSIS_ENTANGLEMENT_BUDGET_MS } from '../coupling/entangled-pairs.js';
import { JobsTokens, type JobsTokenSettings, type SessionLookup, type SigningKeyStore } from '../auth/jwt.js';
import type { Config } from '../config/config.js';
import { ConfigError, int } from '../config/env-parser.js';
import type { MediaService } from '../media/media-service.js';
import { builtinCapabilities, type ExecutionForJobs } from '../jobs/capabilities/index.js';
import { couplingSettingsFromEnv } from '../coupling/settings.js';
import { CapabilityRegistry } from '../jobs/capability.js';
import { CancelRequests } from '../queue/cancel-requests.js';
import { JobsService } from '../jobs/jobs-service.js';
import { createJobsWorker, type JobsWorker } from '../jobs/jobs-worker.js';
import type { Meter } from '../telemetry/meter.js';
import type { StepLog } from '../queue/queue-worker.js';
import { DEFAULT_SUBMIT_BATCHING, type JobsBillingPort, type JobsComputePort, type JobsRepository, type SubmitBatching } from '../jobs/ports.js';

export interface JobsServices {
  readonly jobs: JobsService;
  readonly jobsWorker: JobsWorker;
  readonly credentials: CredentialService;
  readonly jobsTokens: JobsTokens;
}

export interface JobsSettingsFromEnv {
  readonly tokens: JobsTokenSettings;
  readonly holdTtlSeconds: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly maxAttempts: number;
  readonly concurrency: number;
  readonly authCacheMs: number;
  /** Group commit of submissions (src/store/jobs/group-commit.ts). */
  readonly submitBatchMax: number;
  readonly submitInFlight: number;
}

export function jobsSettings(config: Config): JobsSettingsFromEnv {
  const env = config.env;
  const audience = env['JOBS_JWT_AUDIENCE'] || `${config.publicBaseUrl}/v1/jobs`;
  const extIssuer = env['JOBS_JWT_ISSUER'];
  const jwksUrl = env['JOBS_JWKS_URL'];
  if ((extIssuer ?? '') !== '' && (jwksUrl ?? '') === '') throw new ConfigError('JOBS_JWKS_URL', 'is required when JOBS_JWT_ISSUER is set');
  if ((jwksUrl ?? '') !== '') {
    try {
      const u = new URL(jwksUrl as string);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
    } catch {
      throw new ConfigError('JOBS_JWKS_URL', `must be an http(s) URL, got "${jwksUrl}"`);
    }
  }
  return {
    tokens: {
      issuer: config.publicBaseUrl,
      audience,
      ttlSeconds: int(env, 'JOBS_TOKEN_TTL_SECONDS', 900, 60, 86_400),
      ...(extIssuer !== undefined && extIssuer !== '' && jwksUrl !== undefined
        ? { external: { issuer: extIssuer, audience, jwksUrl, accountClaim: env['JOBS_JWT_ACCOUNT_CLAIM'] || 'account_id' } }
        : {}),
    },
    holdTtlSeconds: int(env, 'JOBS_HOLD_TTL_SECONDS', 86_400, 60, 30 * 86_400),
    leaseMs: int(env, 'JOBS_LEASE_MS', 30_000, 100, 3_600_000),
    pollMs: int(env, 'JOBS_POLL_MS', 200, 5, 60_000),
    maxAttempts: int(env, 'JOBS_MAX_ATTEMPTS', 3, 1, 100),
    concurrency: int(env, 'JOBS_WORKER_CONCURRENCY', 1, 1, 64),
    authCacheMs: int(env, 'JOBS_AUTH_CACHE_MS', 1_000, 0, 60_000),
    submitBatchMax: int(env, 'JOBS_SUBMIT_BATCH_MAX', DEFAULT_SUBMIT_BATCHING.maxBatch, 1, 256),
    submitInFlight: int(env, 'JOBS_SUBMIT_IN_FLIGHT', DEFAULT_SUBMIT_BATCHING.maxInFlight, 1, 64),
  };
}

/**
 * The capabilities' compute port on the pool. Circuits cross as wire format 0.2, re-parsed in the
 * task with the limits they were validated against. The hard timeouts are far above each run's own
 * budget (the work checks it); only a runaway thread reaches them.
 */
export function poolJobsCompute(compute: ComputePool, limits: CircuitLimits): JobsComputePort {
  // A job's cancel aborts its task: dropped from the pool's queue, or told to stop (its thread terminated past the grace).
  const run = (budgetMs: number, signal: AbortSignal | undefined) => ({ hardTimeoutMs: hardTimeoutFor(budgetMs), ...(signal === undefined ? {} : { signal }) });
  return {
    optimize: (circuit, o, signal) =>
      compute.run('optimize', { circuit: toWire(circuit), limits, profile: o.profile, backendHint: o.backendHint, includeSteps: false }, run(PROFILE_BUDGET_MS[o.profile], signal)),
    analyzeCoupling: (circuit, request, settings, signal) =>
      compute.run(
        'coupling.analyze',
        { circuit: toWire(circuit), limits, mode: request.mode, pairs: request.pairs, ...(request.pairsPath === undefined ? {} : { pairsPath: request.pairsPath }), settings },
        run(settings.timeBudgetMs, signal),
      ),
    // A job's circuit may be as wide as its method takes (the stabilizer's), beyond CIRCUIT_MAX_QUBITS.
    simulate: (circuit, o, signal) =>
      compute.run('simulate', { circuit: toWire(circuit), limits: { ...limits, maxQubits: Math.max(limits.maxQubits, circuit.numQubits) }, ...o }, run(DEFAULT_TIME_BUDGET_MS, signal)),
    // The same probe and budget as POST /v1/circuits/analyze (src/http/routes/circuits/circuits-routes.ts).
    entangledPairs: (circuit, signal) =>
      compute.run('circuit.entangled-pairs', { circuit: toWire(circuit), limits, timeBudgetMs: ANALYSIS_ENTANGLEMENT_BUDGET_MS }, run(ANALYSIS_ENTANGLEMENT_BUDGET_MS, signal)),
  };
}

/** The jobs domain's storage, built by the composition root (src/services.ts) from the store's adapters. */
export interface JobsStores {
  jobs(batching: SubmitBatching & { readonly onBatchError?: (e: unknown) => void }): JobsRepository;
  readonly credentials: CredentialsRepository;
  readonly signingKeys: SigningKeyStore;
}

export function createJobsServices(
  config: Config,
  stores: JobsStores,
  deps: {
    compute: ComputePool;
    media?: MediaService;
    execution?: ExecutionForJobs;
    billing?: JobsBillingPort;
    sessions?: SessionLookup;
    log?: (e: unknown, jobId?: string) => void;
    logStep?: StepLog;
    meter?: Meter;
  },
): JobsServices {
  const s = jobsSettings(config);
  const sha256 = (x: string) => createHash('sha256').update(x).digest('hex');
  const credentials = new CredentialService(stores.credentials, sha256, randomUUID, s.authCacheMs);
  const jobsTokens = new JobsTokens(s.tokens, stores.signingKeys, credentials, randomUUID, undefined, deps.sessions);
  const registry = new CapabilityRegistry(
    builtinCapabilities({
      circuitLimits: config.circuitLimits,
      coupling: couplingSettingsFromEnv(config.env),
      compute: poolJobsCompute(deps.compute, config.circuitLimits),
      media: deps.media,
      execution: deps.execution,
    }),
  );
  const repo = stores.jobs({
    maxBatch: s.submitBatchMax,
    maxInFlight: s.submitInFlight,
    onBatchError: (e) => deps.log?.(e),
  });
  // Cancels taken by this process reach its worker's running jobs at once (others' at their next heartbeat).
  const cancels = new CancelRequests();
  const jobs = new JobsService(repo, registry, { publicBaseUrl: config.publicBaseUrl, holdTtlSeconds: s.holdTtlSeconds }, sha256, randomUUID, () => new Date(), deps.billing, cancels);
  const jobsWorker = createJobsWorker(repo, registry, {
    id: `${process.pid}-${randomUUID().slice(0, 8)}`,
    leaseMs: s.leaseMs,
    pollMs: s.pollMs,
    maxAttempts: s.maxAttempts,
    concurrency: s.concurrency,
    onError: deps.log ?? (() => undefined),
    cancels,
    ...(deps.meter === undefined ? {} : { meter: deps.meter }),
    ...(deps.logStep === undefined ? {} : { logStep: deps.logStep }),
  });
  return { jobs, jobsWorker, credentials, jobsTokens };
}
