import type { Config } from '../config/config.js';
import type { ComputePool } from '../compute/compute-pool.js';
import type { Database } from '../store/db.js';
import { SessionService } from '../auth/session-service.js';
import { argon2idHasher } from '../auth/password-hasher.js';
import { pgAuthRepository } from '../store/repositories/auth-repository.js';
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { MetricsRegistry } from '../http/metrics-registry.js';
import type { BackgroundWorker } from '../worker.js';
import { createJobsServices, type JobsServices, type JobsStores } from './jobs.js';
import { createMediaService } from '../media/adapters/create-media-service.js';
import type { MediaService } from '../media/media-service.js';
import { BillingService } from '../billing/billing-service.js';
import { sqlBillingPorts } from '../store/billing/sql-billing-ports.js';
import { createExecutionServices, type ExecutionServices } from './execution.js';
import { pgExecutionStore } from '../store/execution/pg-execution-store.js';
import { pgJobsRepository } from '../store/jobs/jobs-repository.js';
import { pgCredentialsRepository, pgSigningKeyStore } from '../store/repositories/credentials-repository.js';
import type { Idempotency } from '../idempotency/idempotency.js';
import { idempotencyRepository } from '../store/repositories/idempotency-repository.js';
import { createAccountServices, type AccountServices } from './accounts.js';

/**
 * The composition root's product: domain services wired to their adapters.
 * Each area adds its own services here; routes reach them through `app.services`.
 */
export interface Services extends JobsServices, ExecutionServices, AccountServices {
  readonly sessions: SessionService;
  readonly metrics: MetricsRegistry;
  readonly billing: BillingService;
  /** The one idempotency mechanism: the Idempotency-Key header's plugin and execution's client tokens use it. */
  readonly idempotency: Idempotency;
  /** Chat and text-to-speech (issue 10); `media.readiness()` reports both. */
  readonly media: MediaService;
  /** Started by `serve --role worker|all`. */
  readonly workers: BackgroundWorker[];
  /** Run in reverse order when the app closes (timers, connections). */
  readonly closers: Array<() => Promise<void>>;
}

/**
 * `compute`: the app's compute pool (src/app.ts creates and closes it); the jobs capabilities and
 * the local execution drivers run their CPU-heavy work on it, off the event loop.
 */
export async function createServices(config: Config, db: Database, compute: ComputePool): Promise<Services> {
  const sessions = new SessionService(
    pgAuthRepository(db),
    argon2idHasher(config.password),
    {
      idleTtlSeconds: config.session.idleTtlSeconds,
      absoluteTtlSeconds: config.session.absoluteTtlSeconds,
      cacheMs: config.session.cacheMs,
      maxFailures: config.loginThrottle.maxFailures,
      throttleWindowSeconds: config.loginThrottle.windowSeconds,
    },
    (secret) => createHash('sha256').update(secret).digest('hex'),
  );
  const billing = new BillingService(config, sqlBillingPorts(db));
  const idempotency = idempotencyRepository(db);
  const media = createMediaService(config.env);
  // Background workers run outside any request: they log through their own pino logger
  // (same level and JSON format as the HTTP logger), so their errors are not swallowed.
  const workerLog = pino({ level: config.logLevel, base: { pid: process.pid } });
  const logWorkerError = (worker: string) => (e: unknown, jobId?: string) => workerLog.error({ err: e, worker, ...(jobId === undefined ? {} : { job_id: jobId }) }, `${worker} error`);
  const executionServices = createExecutionServices(config, pgExecutionStore(db), { billing, idempotency, compute, mediaReadiness: () => media.readiness(), log: logWorkerError('execution-worker') });
  const { settings } = executionServices.execution.deps;
  const jobsStores: JobsStores = { jobs: (batching) => pgJobsRepository(db, batching), credentials: pgCredentialsRepository(db), signingKeys: pgSigningKeyStore(db) };
  const jobsServices = createJobsServices(config, jobsStores, {
    compute,
    media,
    billing,
    sessions: {
      async activeAccount(id) {
        const c = await sessions.checkId(id);
        return c.state === 'valid' && c.session !== undefined ? c.session.accountId : null;
      },
    },
    execution: {
      service: executionServices.execution,
      providers: [...(settings.providerOneEnabled ? ['provider-one' as const] : []), ...(settings.providerTwoEnabled ? ['provider-two' as const] : [])],
      maxShots: settings.maxShots,
      simMaxQubits: settings.simMaxQubits,
    },
    log: logWorkerError('jobs-worker'),
  });
  const accountServices = createAccountServices(
    config,
    db,
    { sessions, credentials: jobsServices.credentials },
    {
      info: (fields, msg) => workerLog.info({ worker: 'mail-outbox', ...fields }, msg),
      error: (e) => logWorkerError('mail-outbox')(e),
    },
  );
  return {
    sessions,
    metrics: new MetricsRegistry(),
    billing,
    idempotency,
    media,
    workers: [...billing.workers, jobsServices.jobsWorker, executionServices.executionWorker, accountServices.mailOutbox],
    closers: [],
    ...jobsServices,
    ...executionServices,
    ...accountServices,
  };
}
