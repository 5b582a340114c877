import Fastify, { LogController, type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import { pino, type DestinationStream } from 'pino';
import type { QrailTypeProvider } from './http/type-provider.js';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { registerPageHeaders } from './http/html-page.js';
import { randomUUID } from 'node:crypto';
import type { Config } from './config/config.js';
import type { Database } from './store/db.js';
import { openDatabase } from './store/open-database.js';
import { migrate } from './store/migrate.js';
import { createServices } from './composition/services.js';
import { createComputePool, type ComputePool } from './compute/compute-pool.js';
import type { App } from './http/app-types.js';
import { MetaSchema } from './http/envelope-schemas.js';
import { API_COMPONENTS } from './http/openapi/components.js';
import { openapiOptions } from './http/openapi/openapi-document.js';
import { handleFrameworkError, registerEnvelope } from './http/plugins/envelope.js';
import { validatorFactory } from './http/plugins/validation.js';
import { registerRateLimit } from './http/plugins/rate-limit.js';
import { rateLimitStore } from './http/plugins/rate-limit-sharing.js';
import { registerNotFound } from './http/plugins/not-found.js';
import { registerJsonBody } from './http/plugins/json-body.js';
import { registerMetrics } from './http/plugins/metrics.js';
import { registerTracing } from './http/plugins/tracing.js';
import { registerAuth } from './http/plugins/auth.js';
import { registerIdempotency } from './http/plugins/idempotency.js';
import { registerTextSafety } from './http/plugins/text-safety.js';
import { registerCompression } from './http/plugins/compression.js';
import { DOCS_LOGO, DOCS_THEME } from './http/docs-brand.js';
import { ROUTES } from './http/routes/index.js';

export interface BuildAppOptions {
  readonly config: Config;
  /** An already-open database (the app will not close it unless ownsDb); otherwise opened from config. */
  readonly db?: Database;
  /** The app closes `db` with itself (serve opens it early, in parallel with loading the app). */
  readonly ownsDb?: boolean;
  /** PostgreSQL schema to isolate this app in (tests). */
  readonly schema?: string;
  readonly logger?: FastifyServerOptions['logger'];
  /** Where every log line goes (the HTTP log and the workers'), instead of stdout (tests read the log). */
  readonly logDestination?: DestinationStream;
  /** Skip migrations (the CLI runs them separately). */
  readonly migrate?: boolean;
  /** A compute pool to use instead of one made from COMPUTE_THREADS (tests); the app closes it like its own. */
  readonly compute?: ComputePool;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const serializeAsBuilt = (data: unknown): string => JSON.stringify(data);

export async function buildApp(opts: BuildAppOptions): Promise<App> {
  const { config } = opts;
  const ownsDb = opts.db === undefined || opts.ownsDb === true;
  const db = opts.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, ...(opts.schema === undefined ? {} : { schema: opts.schema }) }));
  // CPU-heavy work runs here, off the event loop: optimize and measured coupling requests, and the
  // jobs and execution workers' runs (handed to the services). Threads start on first use.
  const compute = opts.compute ?? createComputePool({ threads: config.computeThreads });
  let services: Awaited<ReturnType<typeof createServices>>;
  try {
    if (opts.migrate !== false) await migrate(db);
    services = await createServices(config, db, compute, opts.logDestination);
  } catch (e) {
    // A failed build must not leave its own pool (or PGlite instance) open behind it.
    await compute.close().catch(() => undefined);
    if (ownsDb) await db.close().catch(() => undefined);
    throw e;
  }

  // Typed as Fastify's base logger so the app keeps its usual type with either kind of logger.
  const loggerInstance: FastifyBaseLogger | undefined = opts.logDestination === undefined ? undefined : pino({ level: config.logLevel }, opts.logDestination);
  const app = Fastify({
    ...(loggerInstance === undefined ? { logger: opts.logger ?? { level: config.logLevel } } : { loggerInstance }),
    // plugins/metrics.ts logs one line per request, with the route, account and error code.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // An incoming X-Request-Id is kept when it is sane, so callers can correlate logs.
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && REQUEST_ID.test(h) ? h : randomUUID();
    },
    return503OnClosing: false,
    // Plugins register while the database (PGlite compiles WebAssembly) may hold the event loop;
    // avvio's 10 s default then fails a healthy start on a loaded machine.
    pluginTimeout: 120_000,
    forceCloseConnections: 'idle',
    trustProxy: config.trustProxy,
    // Our validator in every encapsulated context: a plugin that adds shared schemas (circuits)
    // gets a fresh compiler from this factory, where setValidatorCompiler would leave it
    // Fastify's default one (which silently drops unknown members and coerces body types).
    // Responses are serialised as the handlers build them: response schemas document the API
    // (and a test checks real answers against them) but never filter or coerce an answer.
    schemaController: { compilersFactory: { buildValidator: validatorFactory, buildSerializer: () => () => serializeAsBuilt } },
    // Router errors (bad percent-encoding, over-long path parameters) get the envelope too.
    frameworkErrors: handleFrameworkError,
  }).withTypeProvider<QrailTypeProvider>();

  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('services', services);
  app.decorate('compute', services.compute);
  app.decorate('draining', false);
  app.decorateRequest('startedAt', 0n);

  // Only JSON bodies are accepted (415 otherwise); routes that take other types add their own parser.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);
  app.addSchema(MetaSchema);
  for (const s of API_COMPONENTS) app.addSchema(s);

  // First: the request's span is active for every hook after it.
  registerTracing(app);
  registerEnvelope(app);
  registerNotFound(app);
  registerPageHeaders(app);
  registerMetrics(app, services.metrics);

  const rateStore = rateLimitStore(app, config, services.metrics);
  registerRateLimit(app, rateStore, config.rateLimit, services.metrics);
  registerTextSafety(app);
  registerAuth(app);
  // Before the routes: its onRoute hook equips the routes that opt in with config.idempotent.
  registerIdempotency(app, services.idempotency);
  // After idempotency (it stores the plain answer), before every route (see the plugin).
  await registerCompression(app);

  await app.register(swagger, openapiOptions(config));
  // The reference page's own routes (its HTML, assets and the document it loads from /docs/json)
  // answer as they are: Swagger UI cannot read a document inside the response envelope.
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...route.config, surface: 'raw' };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true }, theme: DOCS_THEME, logo: DOCS_LOGO });

  app.get('/openapi.json', { config: { surface: 'raw', rateLimit: false }, schema: { hide: true } }, async () => app.swagger());

  for (const routes of ROUTES) await app.register(routes);

  app.addHook('onClose', async () => {
    // After the listener closed and in-flight requests finished (Fastify closes the server first).
    // Workers first (`serve` has stopped them already; stop() is idempotent): a job still running
    // on the pool would otherwise fail with SERVICE_DRAINING instead of finishing.
    for (const w of services.workers) await w.stop().catch(() => undefined);
    await compute.close().catch(() => undefined);
    for (const close of [...services.closers].reverse()) await close().catch(() => undefined);
    await rateStore.close();
    if (ownsDb) await db.close();
  });

  return app;
}
