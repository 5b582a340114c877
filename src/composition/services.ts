import type { Config } from '../config/config.js';
import type { ComputePool } from '../compute/compute-pool.js';
import { StoreUnavailableError, type Database } from '../store/db.js';
import { SessionService } from '../auth/session-service.js';
import { argon2idHasher } from '../auth/password-hasher.js';
import { pgAuthRepository } from '../store/repositories/auth-repository.js';
import { createHash } from 'node:crypto';
import { pino, type DestinationStream } from 'pino';
import { PromMeter } from '../telemetry/prom-meter.js';
import { activeTraceFields } from '../telemetry/trace.js';
import { meteredPool } from '../compute/metered-pool.js';
import { registerStoreMetrics } from '../store/store-metrics.js';
import type { BackgroundWorker } from '../worker.js';
import { LedgerCheckWorker } from '../billing/ledger-check-worker.js';
import { LedgerJournalWorker } from '../billing/ledger-journal.js';
import { sqlJournalQueue } from '../store/billing/ledger-journal-sql.js';
import { createJobsServices, type JobsServices, type JobsStores } from './jobs.js';
import { createMediaService } from '../media/adapters/create-media-service.js';
import type { MediaService } from '../media/media-service.js';
import { BillingService } from '../billing/billing-service.js';
import { sqlBillingPorts } from '../store/billing/sql-billing-ports.js';
import { createExecutionServices, type ExecutionServices } from './execution.js';
import { pgExecutionStore } from '../store/execution/pg-execution-store.js';
import { pgDeviceSnapshotStore } from '../store/execution/device-snapshot-sql.js';
import { pgJobsRepository } from '../store/jobs/jobs-repository.js';
import { pgCredentialsRepository, pgSigningKeyStore } from '../store/repositories/credentials-repository.js';
import type { Idempotency } from '../idempotency/idempotency.js';
import { idempotencyRepository } from '../store/repositories/idempotency-repository.js';
import { createWebhookServices, type WebhookServices } from './webhooks.js';
import { createAccountServices, type AccountServices } from './accounts.js';
import { createOptimizeJobsServices, type OptimizeJobsServices } from './optimize-jobs.js';
import { OrgService } from '../orgs/org-service.js';
import { pgOrgRepository } from '../store/orgs/org-repository.js';

/**
 * The composition root's product: domain services wired to their adapters.
 * Each area adds its own services here; routes reach them through `app.services`.
 */
export interface Services extends JobsServices, ExecutionServices, WebhookServices, AccountServices, OptimizeJobsServices {
  readonly sessions: SessionService;
  /** Organizations: members, roles, invitations, the audit log (issue #39). */
  readonly orgs: OrgService;
  /** Prometheus metrics (GET /metrics renders them); the services record through it as a `Meter`. */
  readonly metrics: PromMeter;
  readonly billing: BillingService;
  /** The one idempotency mechanism: the Idempotency-Key header's plugin and execution's client tokens use it. */
  readonly idempotency: Idempotency;
  /** Chat and text-to-speech (issue 10); `media.readiness()` reports both. */
  readonly media: MediaService;
  /** The app's compute pool, with its metrics (app.compute). */
  readonly compute: ComputePool;
  /** Started by `serve --role worker|all`. */
  readonly workers: BackgroundWorker[];
  /** Run in reverse order when the app closes (timers, connections). */
  readonly closers: Array<() => Promise<void>>;
}

/**
 * `compute`: the app's compute pool (src/app.ts creates and closes it); the jobs capabilities and
 * the local execution drivers run their CPU-heavy work on it, off the event loop.
 */
export async function createServices(config: Config, db: Database, pool: ComputePool, logDestination?: DestinationStream): Promise<Services> {
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
  const metrics = new PromMeter();
  const compute = meteredPool(pool, metrics);
  const billing = new BillingService(config, sqlBillingPorts(db), undefined, undefined, metrics);
  registerStoreMetrics(metrics, db);
  const idempotency = idempotencyRepository(db);
  const media = createMediaService(config.env);
  // Background workers run outside any request: they log through their own pino logger
  // (same level and JSON format as the HTTP logger), so their errors are not swallowed.
  // Lines written while a job's span is active (tracing on) carry its trace and span ids.
  const workerLog = pino({ level: config.logLevel, base: { pid: process.pid }, mixin: activeTraceFields }, logDestination ?? pino.destination(1));
  const logWorkerStep = (worker: string) => (fields: Record<string, unknown>, msg: string) => workerLog.info({ worker, ...fields }, msg);
  // The database being unreachable is logged once per change of state (below), not by every
  // worker at every round of its loop: an outage wrote ~14 stack traces a second.
  const logWorkerError = (worker: string) => (e: unknown, jobId?: string) => {
    if (e instanceof StoreUnavailableError) workerLog.debug({ worker, err_message: e.message, ...(jobId === undefined ? {} : { job_id: jobId }) }, `${worker}: database unavailable`);
    else workerLog.error({ err: e, worker, ...(jobId === undefined ? {} : { job_id: jobId }) }, `${worker} error`);
  };
  let unreachableSince = 0;
  db.watchAvailability?.((available, cause) => {
    if (!available) {
      unreachableSince = Date.now();
      const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
      workerLog.error({ reason }, 'database unreachable: requests answer 503 STORE_UNAVAILABLE and workers back off until it answers');
    } else workerLog.warn({ unreachable_ms: Date.now() - unreachableSince }, 'database reachable again');
  });
  const executionServices = createExecutionServices(config, pgExecutionStore(db), {
    billing,
    idempotency,
    compute,
    mediaReadiness: () => media.readiness(),
    log: logWorkerError('execution-worker'),
    logStep: logWorkerStep('execution-worker'),
    meter: metrics,
    snapshots: pgDeviceSnapshotStore(db),
  });
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
    logStep: logWorkerStep('jobs-worker'),
    meter: metrics,
  });
  const optimizeJobsServices = createOptimizeJobsServices(db, compute, {
    log: logWorkerError('optimize-worker'),
    logStep: logWorkerStep('optimize-worker'),
    meter: metrics,
  });
  const webhookServices = createWebhookServices(config, db, logWorkerError('webhook-delivery'), metrics);
  const ledgerCheck = new LedgerCheckWorker(
    () => billing.ledgerCheck(),
    billing.settings.ledgerCheckIntervalSeconds * 1000,
    metrics,
    (o) => {
      if ('error' in o) workerLog.error({ err: o.error, worker: 'billing-ledger-check' }, 'ledger check could not run');
      else if (!o.result.ok)
        workerLog.error({ worker: 'billing-ledger-check', violations: o.result.problems.length, problems: o.result.problems.slice(0, 20) }, 'ledger check found broken invariants');
      else workerLog.info({ worker: 'billing-ledger-check' }, 'ledger check clean');
    },
  );
  const ledgerJournal = new LedgerJournalWorker(
    sqlJournalQueue(db),
    billing.settings.ledgerJournalIntervalMs,
    (e) =>
      workerLog.info(
        {
          worker: 'ledger-journal',
          transfer_id: e.transferId,
          kind: e.kind,
          amount_micro_usd: e.amountMicros.toString(),
          account_id: e.accountId,
          hold_id: e.holdId,
          from: e.from,
          to: e.to,
          description: e.description,
          transfer_at: e.createdAt.toISOString(),
        },
        'money moved',
      ),
    logWorkerError('ledger-journal'),
  );
  const accountServices = createAccountServices(
    config,
    db,
    { sessions, credentials: jobsServices.credentials },
    {
      info: (fields, msg) => workerLog.info({ worker: 'mail-outbox', ...fields }, msg),
      error: (e) => logWorkerError('mail-outbox')(e),
    },
  );
  const orgs = new OrgService(pgOrgRepository(db), {
    publicBaseUrl: config.publicBaseUrl,
    nudgeMail: () => accountServices.mailOutbox.nudge(),
    forgetCredentials: () => jobsServices.credentials.forgetCached(),
  });
  return {
    sessions,
    orgs,
    metrics,
    compute,
    billing,
    idempotency,
    media,
    workers: [
      ...billing.workers,
      jobsServices.jobsWorker,
      executionServices.executionWorker,
      optimizeJobsServices.optimizeWorker,
      executionServices.snapshotRefresher,
      webhookServices.webhookWorker,
      ledgerCheck,
      ledgerJournal,
      accountServices.mailOutbox,
    ],
    closers: [],
    ...jobsServices,
    ...executionServices,
    ...webhookServices,
    ...accountServices,
    ...optimizeJobsServices,
  };
}
