import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { ConfigError, bool, int, optional, type Env } from './env-parser.js';

/**
 * Configuration, parsed and validated once from an environment-like record.
 * Only `src/main.ts` and the CLI pass `process.env` here; everything else receives a `Config`.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** Optional second listener for the Account Jobs interface (DESIGN §1). */
  readonly jobsPort: number | undefined;
  readonly databaseUrl: string | undefined;
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  readonly dataDir: string;
  /** The built web console (CONSOLE_DIR); undefined: console/dist of this checkout. */
  readonly consoleDir: string | undefined;
  readonly redisUrl: string | undefined;
  /** The most a request waits for Redis (REDIS_TIMEOUT_MS), and how long the breaker then counts locally (REDIS_BREAKER_COOLDOWN_MS). */
  readonly redisTimeoutMs: number;
  /** Prepended to every Redis key, so two deployments can share one Redis. */
  readonly redisKeyPrefix: string;
  readonly redisCooldownMs: number;
  readonly logLevel: string;
  /** Absolute base URL used in `retrieval_url` and hosted pages. */
  readonly publicBaseUrl: string;
  readonly bodyLimitBytes: number;
  readonly rateLimit: { readonly perMinute: number; readonly authPerMinute: number };
  readonly session: {
    readonly idleTtlSeconds: number;
    readonly absoluteTtlSeconds: number;
    /** How long a validated session may be served from the in-process cache (0 = never cache). */
    readonly cacheMs: number;
  };
  readonly password: { readonly memoryKiB: number; readonly iterations: number; readonly parallelism: number };
  readonly loginThrottle: { readonly maxFailures: number; readonly windowSeconds: number };
  readonly circuitLimits: { readonly maxQubits: number; readonly maxGates: number; readonly maxDepth: number };
  readonly shutdownGraceMs: number;
  /** After SIGTERM: how long to keep answering 503 (readiness down) before closing the listener. */
  readonly shutdownDrainDelayMs: number;
  readonly operatorToken: string | undefined;
  /**
   * Where /metrics is served: on its own listener (`port`, METRICS_PORT; also in the worker role),
   * or on the public port behind `Authorization: Bearer <token>` (METRICS_TOKEN). With neither, the
   * public port serves it only while HOST is a loopback address.
   */
  readonly metrics: { readonly port: number | undefined; readonly token: string | undefined };
  /** OpenTelemetry traces exported over OTLP/HTTP to this endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); unset = tracing off. */
  readonly otlpEndpoint: string | undefined;
  /** Worker threads for CPU-heavy requests (optimize, measured coupling); 0 = in-process. */
  readonly computeThreads: number;
  /** Take the client address from X-Forwarded-For (behind a load balancer). */
  readonly trustProxy: boolean;
  /** Every other variable the domains read (provider keys, processor keys, media URLs). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

function str(env: Env, name: string, def: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? def : raw;
}

// An address, or a host name of RFC 1123 labels; anything else cannot be listened on.
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

function hostOf(env: Env): string {
  const host = str(env, 'HOST', '127.0.0.1');
  if (isIP(host) === 0 && !HOST_NAME.test(host)) throw new ConfigError('HOST', `must be an IP address or a host name, got "${host}"`);
  return host;
}

function optUrl(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${raw.replace(/:[^:@/]*@/, ':***@')}"`);
  }
  if (!protocols.includes(u.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')}, got ${u.protocol}`);
  }
  return raw;
}

/**
 * COMPUTE_THREADS' default: one core stays with the event loop; at most 4 because each busy thread
 * holds its own working memory (a measured-coupling state vector at 26 qubits is 1 GiB).
 */
export function defaultComputeThreads(cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = hostOf(env);
  const logLevel = str(env, 'LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const jobsPort = optional(env, 'JOBS_PORT') === undefined ? undefined : int(env, 'JOBS_PORT', 0, 1, 65535);
  const publicBaseUrl = optUrl(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host}:${port}`;
  const idle = int(env, 'SESSION_IDLE_TTL_SECONDS', 60 * 60 * 24, 60, 60 * 60 * 24 * 90);
  const absolute = int(env, 'SESSION_ABSOLUTE_TTL_SECONDS', 60 * 60 * 24 * 14, 60, 60 * 60 * 24 * 365);
  if (absolute < idle) throw new ConfigError('SESSION_ABSOLUTE_TTL_SECONDS', 'must be at least SESSION_IDLE_TTL_SECONDS');
  const operatorToken = env['QRAIL_OPERATOR_TOKEN'];
  if (operatorToken !== undefined && operatorToken !== '' && operatorToken.length < 24) {
    throw new ConfigError('QRAIL_OPERATOR_TOKEN', 'must be at least 24 characters');
  }
  const metricsToken = optional(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 24) throw new ConfigError('METRICS_TOKEN', 'must be at least 24 characters');
  const metricsPort = optional(env, 'METRICS_PORT') === undefined ? undefined : int(env, 'METRICS_PORT', 0, 1, 65535);
  if (metricsPort !== undefined && (metricsPort === port || metricsPort === jobsPort)) throw new ConfigError('METRICS_PORT', 'must differ from PORT and JOBS_PORT');
  return Object.freeze({
    host,
    port,
    jobsPort,
    databaseUrl: optUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: str(env, 'DATA_DIR', './data'),
    consoleDir: env['CONSOLE_DIR'] === undefined || env['CONSOLE_DIR'] === '' ? undefined : env['CONSOLE_DIR'],
    redisUrl: optUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisTimeoutMs: int(env, 'REDIS_TIMEOUT_MS', 100, 1, 60_000),
    redisKeyPrefix: redisKeyPrefix(env),
    redisCooldownMs: int(env, 'REDIS_BREAKER_COOLDOWN_MS', 5_000, 10, 600_000),
    logLevel,
    publicBaseUrl: publicBaseUrl.replace(/\/+$/, ''),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    rateLimit: Object.freeze({
      perMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 10_000_000),
      authPerMinute: int(env, 'RATE_LIMIT_AUTH_PER_MINUTE', 30, 1, 10_000_000),
    }),
    session: Object.freeze({
      idleTtlSeconds: idle,
      absoluteTtlSeconds: absolute,
      cacheMs: int(env, 'SESSION_CACHE_MS', 1000, 0, 60_000),
    }),
    password: Object.freeze({
      // OWASP minimum for argon2id: m = 19 MiB, t = 2, p = 1.
      memoryKiB: int(env, 'PASSWORD_ARGON2_MEMORY_KIB', 19 * 1024, 19 * 1024, 1024 * 1024),
      iterations: int(env, 'PASSWORD_ARGON2_ITERATIONS', 2, 2, 20),
      parallelism: 1,
    }),
    loginThrottle: Object.freeze({
      maxFailures: int(env, 'LOGIN_MAX_FAILURES', 5, 1, 1000),
      windowSeconds: int(env, 'LOGIN_THROTTLE_WINDOW_SECONDS', 900, 1, 86_400),
    }),
    circuitLimits: Object.freeze({
      maxQubits: int(env, 'CIRCUIT_MAX_QUBITS', 64, 1, 1024),
      maxGates: int(env, 'CIRCUIT_MAX_GATES', 100_000, 1, 10_000_000),
      maxDepth: int(env, 'CIRCUIT_MAX_DEPTH', 50_000, 1, 10_000_000),
    }),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 15_000, 0, 600_000),
    shutdownDrainDelayMs: int(env, 'SHUTDOWN_DRAIN_DELAY_MS', 2_000, 0, 120_000),
    operatorToken: operatorToken === '' ? undefined : operatorToken,
    metrics: Object.freeze({ port: metricsPort, token: metricsToken }),
    otlpEndpoint: optUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
    computeThreads: int(env, 'COMPUTE_THREADS', defaultComputeThreads(), 0, 64),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    env: Object.freeze({ ...env }),
  });
}

/** `qrail:` unless set; a short printable token ending in `:` (Redis key separator convention). */
function redisKeyPrefix(env: Env): string {
  const v = optional(env, 'REDIS_KEY_PREFIX') ?? 'qrail:';
  if (!/^[A-Za-z0-9_.-]{1,64}:$/.test(v)) throw new ConfigError('REDIS_KEY_PREFIX', 'must be 1–64 letters, digits, "_", "." or "-" followed by ":"');
  return v;
}
