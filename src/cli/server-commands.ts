import { createServer, type Server } from 'node:http';
import type { Config } from '../config/config.js';
import type { App } from '../http/app-types.js';
import { unknownVariables } from '../config/known-variables.js';
import { ConfigError, optional } from '../config/env-parser.js';
import { describeDatabase } from './startup-report.js';
import { EXIT, KEEP_RUNNING, type CliCommand } from './cli-command.js';
import { SERVICE_VERSION } from '../version.js';

/**
 * `qrail serve` and `qrail migrate`. The app, the store and the migration runner are imported
 * when the command runs, not when the table is loaded: `--help` and a usage error never load
 * (let alone open) any of them, and stay fast.
 */

type Role = 'api' | 'worker' | 'all';

export function unknownVariablesLine(env: Config['env']): string | undefined {
  const unknown = unknownVariables(env);
  if (unknown.length === 0) return undefined;
  const list = unknown.map((u) => (u.didYouMean === undefined ? u.name : `${u.name} (did you mean ${u.didYouMean}?)`)).join(', ');
  return `ignoring unknown variables that look like qrail settings: ${list}`;
}

function listenJobs(app: App, config: Config, port: number): Promise<Server> {
  // The same app behind a second listener, so the two interfaces can be exposed separately.
  return listenOn(
    createServer((req, res) => app.routing(req, res)),
    config,
    port,
  );
}

async function listenOn(server: Server, config: Config, port: number): Promise<Server> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** METRICS_PORT: Prometheus text at GET /metrics and nothing else, in every role (workers have no other listener). */
function metricsServer(app: App): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served here\n');
      return;
    }
    app.services.metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': app.services.metrics.contentType }).end(text),
      (e: unknown) => {
        app.log.error({ err: e }, 'metrics rendering failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
}

/**
 * A PostgreSQL database is what several nodes share, and a Jobs token names PUBLIC_BASE_URL as its
 * issuer: with the per-node default (http://HOST:PORT) a token from one node is refused by the next.
 * So `serve` on PostgreSQL requires it set (docs/decisions/operations-multi-node-startup-check.md).
 */
export function checkMultiNodeSettings(config: Config): void {
  if (config.databaseUrl !== undefined && optional(config.env, 'PUBLIC_BASE_URL') === undefined) {
    throw new ConfigError(
      'PUBLIC_BASE_URL',
      'must be set when DATABASE_URL selects PostgreSQL: it is the issuer of Jobs tokens, and every node sharing the database must use the same value (docs/operations.md#running-several-nodes)',
    );
  }
}

async function serve(config: Config, role: Role): Promise<void> {
  checkMultiNodeSettings(config);
  // Before the app is built: its request spans are added only when tracing is on.
  const tracing = config.otlpEndpoint === undefined ? undefined : (await import('../telemetry/tracing.js')).startTracing({ endpoint: config.otlpEndpoint, role });
  // The database opens (PGlite compiles its WebAssembly, a new directory is loaded from the baseline)
  // while the app's modules load: the two were the largest parts of a start, one after the other.
  const { openDatabase } = await import('../store/open-database.js');
  const opening = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  opening.catch(() => undefined);
  const modules = await Promise.all([import('../app.js'), import('../billing/billing-config.js')]).catch(async (e: unknown) => {
    await opening.then((db) => db.close()).catch(() => undefined);
    throw e;
  });
  const [{ buildApp }, { loadBillingConfig }] = modules;
  const app = await buildApp({ config, db: await opening, ownsDb: true });
  const unknown = unknownVariablesLine(config.env);
  if (unknown !== undefined) app.log.warn({ variables: unknownVariables(config.env).map((u) => u.name) }, unknown);
  const workers = role === 'api' ? [] : app.services.workers;
  for (const w of workers) w.start();
  let jobsServer: Server | undefined;
  if (role !== 'worker') {
    try {
      await app.listen({ port: config.port, host: config.host });
    } catch (e) {
      // Nothing was served: stop the workers, close the store (and its data-directory lock) before the one-line exit.
      await app.close().catch(() => undefined);
      throw e;
    }
    // Compute threads load their TypeScript now, not during the first optimize request.
    app.compute.warm();
    if (config.jobsPort !== undefined) {
      try {
        jobsServer = await listenJobs(app, config, config.jobsPort);
      } catch (e) {
        await app.close().catch(() => undefined);
        throw Object.assign(e as Error, { listenPort: config.jobsPort });
      }
      app.log.info({ port: config.jobsPort }, 'Account Jobs listener started');
    }
  } else {
    await app.ready();
    // The jobs and execution workers run their heavy work on the compute threads too.
    app.compute.warm();
    app.log.info({ workers: workers.map((w) => w.name) }, 'worker role started');
  }
  let metricsListener: Server | undefined;
  if (config.metrics.port !== undefined) {
    try {
      metricsListener = await listenOn(metricsServer(app), config, config.metrics.port);
    } catch (e) {
      await app.close().catch(() => undefined);
      throw Object.assign(e as Error, { listenPort: config.metrics.port, listenVariable: 'METRICS_PORT' });
    }
    app.log.info({ port: config.metrics.port }, 'metrics listener started');
  }
  const processor = loadBillingConfig(config).processor;
  // PORT=0 without PUBLIC_BASE_URL: the default base names port 0; the log names the port chosen.
  const addr = role === 'worker' ? null : app.server.address();
  const base = config.publicBaseUrl === `http://${config.host}:0` && typeof addr === 'object' && addr !== null ? `http://${config.host}:${addr.port}` : config.publicBaseUrl;
  const database = describeDatabase(config);
  app.log.info(
    {
      role,
      version: SERVICE_VERSION,
      database,
      payment_processor: processor,
      docs: `${base}/docs`,
      listeners: {
        api: role === 'worker' ? null : `${config.host}:${typeof addr === 'object' && addr !== null ? addr.port : config.port}`,
        jobs: config.jobsPort ?? null,
        metrics: config.metrics.port ?? null,
      },
      workers: workers.map((w) => w.name),
      compute_threads: config.computeThreads,
      rate_limit_store: config.redisUrl === undefined ? 'memory' : 'redis',
      tracing: config.otlpEndpoint === undefined ? 'off' : `otlp ${config.otlpEndpoint}`,
      public_base_url: config.publicBaseUrl,
    },
    `qrail started: ${role} role, database ${database}, payment processor ${processor}, docs ${base}/docs`,
  );
  // Only processes that send mail (the outbox worker runs in the worker and all roles).
  if (role !== 'api' && optional(config.env, 'SMTP_URL') === undefined) {
    app.log.warn(
      { mail: 'development outbox' },
      'MAIL IS THE DEVELOPMENT OUTBOX: no mail leaves this machine; verification and reset links are listed only at GET /v1/auth/operator/mail-outbox (redacted in logs); set SMTP_URL before real users sign up',
    );
  }
  if (processor === 'sandbox') {
    app.log.warn(
      { payment_processor: 'sandbox' },
      'PAYMENT PROCESSOR IS THE SANDBOX: no real card is charged and top-ups are simulated; set STRIPE_SECRET_KEY (BILLING_PROCESSOR=stripe) before taking real money',
    );
  }

  // Route validators not compiled by a first request yet: now, off the path to readiness.
  if (role !== 'worker') {
    const { compileDeferredValidators } = await import('../http/plugins/validation.js');
    compileDeferredValidators().then(
      (n) => app.log.debug({ validators: n }, 'request validators compiled'),
      (e: unknown) => app.log.error({ err: e }, 'a request validator failed to compile'),
    );
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'draining: finishing in-flight requests, answering new ones 503');
    app.draining = true;
    const force = setTimeout(() => {
      app.log.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    void (async () => {
      // Load balancers see /readyz fail and stop routing here; stragglers get 503 meanwhile.
      await new Promise((r) => setTimeout(r, config.shutdownDrainDelayMs));
      app.log.info({ workers: workers.map((w) => w.name) }, 'draining: stopping the workers (their items in hand finish)');
      for (const w of workers) await w.stop();
      for (const server of [jobsServer, metricsListener]) if (server !== undefined) await new Promise((r) => server.close(r));
      app.log.info('draining: closing the listener, the compute pool and the database');
      await app.close();
      await tracing?.shutdown().catch(() => undefined);
      app.log.info({ signal }, 'shutdown complete');
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'run the service: HTTP API, background workers, or both',
  description: `Migrates the database, then serves the platform and Account Jobs interfaces on HOST:PORT
(and JOBS_PORT when set) and runs the workers, as the role says. Configuration comes from the
environment only (docs/configuration.md); a bad value stops it with exit 2 before anything opens.
SIGTERM/SIGINT drain: new requests get 503 for SHUTDOWN_DRAIN_DELAY_MS, in-flight work finishes.`,
  options: {
    role: { type: 'string', value: 'role', choices: ['api', 'worker', 'all'], description: 'api = HTTP only, worker = background workers only, all = both; default all' },
  },
  examples: ['qrail serve', 'PORT=9090 DATA_DIR=/srv/qrail qrail serve', 'qrail serve --role worker'],
  async run(input, ctx) {
    const config = await ctx.serverConfig({ quietUnknownVariables: true });
    await serve(config, (input.options['role'] as Role | undefined) ?? 'all');
    return KEEP_RUNNING;
  },
};

export const migrateCommand: CliCommand = {
  name: 'migrate',
  summary: 'apply pending database migrations (serve also does at start)',
  description: `Applies the numbered migrations not yet applied, each in its own transaction, and
refuses to run when an applied file changed (checksum). Concurrent runs on PostgreSQL are serialised.`,
  options: { json: { type: 'boolean', description: 'print {"applied": [...]} on stdout' } },
  examples: ['qrail migrate', 'DATABASE_URL=postgres://qrail@db/qrail qrail migrate'],
  async run(input, ctx) {
    const config = await ctx.serverConfig();
    const { openDatabase } = await import('../store/open-database.js');
    const { migrate } = await import('../store/migrate.js');
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    const applied = await migrate(db);
    await db.close();
    if (input.options['json'] === true) ctx.io.out(`${JSON.stringify({ applied })}\n`);
    else ctx.io.out(applied.length === 0 ? 'database is up to date\n' : `applied ${applied.join(', ')}\n`);
    return EXIT.OK;
  },
};
