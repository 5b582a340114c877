import { SECRET_VARIABLES } from './secret-files.js';

/**
 * Every environment variable qrail reads — the variable tables of docs/configuration.md, kept
 * equal to them by tests/hardening/process-operator-slips.test.ts. Used to warn at start about
 * a variable that looks like one of ours but is not (a typo is otherwise silently ignored).
 */
export const KNOWN_VARIABLES: readonly string[] = [
  'PORT',
  'HOST',
  'JOBS_PORT',
  'METRICS_PORT',
  'METRICS_TOKEN',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'DATABASE_URL',
  'DATA_DIR',
  'CONSOLE_DIR',
  'REDIS_URL',
  'REDIS_TIMEOUT_MS',
  'REDIS_KEY_PREFIX',
  'REDIS_BREAKER_COOLDOWN_MS',
  'PUBLIC_BASE_URL',
  'LOG_LEVEL',
  'BODY_LIMIT_BYTES',
  'RATE_LIMIT_PER_MINUTE',
  'RATE_LIMIT_AUTH_PER_MINUTE',
  'LOGIN_MAX_FAILURES',
  'LOGIN_THROTTLE_WINDOW_SECONDS',
  'SESSION_IDLE_TTL_SECONDS',
  'SESSION_ABSOLUTE_TTL_SECONDS',
  'SESSION_CACHE_MS',
  'PASSWORD_ARGON2_MEMORY_KIB',
  'PASSWORD_ARGON2_ITERATIONS',
  'CIRCUIT_MAX_QUBITS',
  'CIRCUIT_MAX_GATES',
  'CIRCUIT_MAX_DEPTH',
  'SHUTDOWN_DRAIN_DELAY_MS',
  'SHUTDOWN_GRACE_MS',
  'COMPUTE_THREADS',
  'QRAIL_OPERATOR_TOKEN',
  'QRAIL_URL',
  'QRAIL_TOKEN',
  'QRAIL_ORG',
  'QRAIL_CONFIG',
  'XDG_CONFIG_HOME',
  'TRUST_PROXY',
  'SMTP_URL',
  'MAIL_FROM',
  'REQUIRE_EMAIL_VERIFICATION',
  'MAIL_POLL_MS',
  'MAIL_MAX_ATTEMPTS',
  'BILLING_PROCESSOR',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_API_HOST',
  'STRIPE_API_PORT',
  'STRIPE_API_PROTOCOL',
  'SANDBOX_WEBHOOK_SECRET',
  'SANDBOX_AUTO_DELIVER',
  'BILLING_QUOTE_TTL_SECONDS',
  'BILLING_SWEEP_INTERVAL_MS',
  'BILLING_AUTO_RECHARGE_INTERVAL_MS',
  'BILLING_LEDGER_CHECK_INTERVAL_SECONDS',
  'BILLING_LEDGER_JOURNAL_INTERVAL_MS',
  'EXECUTION_PROVIDER_ONE',
  'EXECUTION_PROVIDER_TWO',
  'EXECUTION_EMULATED_HARDWARE',
  'EXECUTION_EMULATED_NOISE',
  'EXECUTION_DEVICE_STATUS',
  'EXECUTION_MAX_SHOTS',
  'EXECUTION_SIM_TIME_BUDGET_MS',
  'EXECUTION_SIM_MAX_QUBITS',
  'EXECUTION_LEASE_MS',
  'EXECUTION_POLL_MS',
  'EXECUTION_REMOTE_POLL_MS',
  'EXECUTION_REMOTE_MAX_FAILURES',
  'EXECUTION_MAX_ATTEMPTS',
  'EXECUTION_RUN_WINDOW_SECONDS',
  'EXECUTION_STATUS_CACHE_MS',
  'IONQ_BASE_URL',
  'IONQ_API_KEY',
  'IONQ_TARGET',
  'IONQ_TIMEOUT_MS',
  'IONQ_NOISE_MODEL',
  'IONQ_GATESET',
  'IBM_QUANTUM_API_KEY',
  'IBM_QUANTUM_INSTANCE',
  'IBM_QUANTUM_BASE_URL',
  'IBM_QUANTUM_IAM_URL',
  'IBM_QUANTUM_TIMEOUT_MS',
  'IBM_QUANTUM_BACKENDS',
  'IBM_QUANTUM_API_VERSION',
  'EXECUTION_SNAPSHOT_REFRESH_MS',
  'EXECUTION_SNAPSHOT_MAX_BACKOFF_MS',
  'COUPLING_MEASURED_MAX_QUBITS',
  'COUPLING_TIME_BUDGET_MS',
  'COUPLING_RATE_LIMIT_PER_MINUTE',
  'JOBS_JWT_AUDIENCE',
  'JOBS_JWT_ISSUER',
  'JOBS_JWKS_URL',
  'JOBS_JWT_ACCOUNT_CLAIM',
  'JOBS_TOKEN_TTL_SECONDS',
  'JOBS_AUTH_CACHE_MS',
  'JOBS_HOLD_TTL_SECONDS',
  'JOBS_LEASE_MS',
  'JOBS_POLL_MS',
  'JOBS_MAX_ATTEMPTS',
  'JOBS_WORKER_CONCURRENCY',
  'JOBS_SUBMIT_BATCH_MAX',
  'JOBS_SUBMIT_IN_FLIGHT',
  'CHAT_BASE_URL',
  'CHAT_API_KEY',
  'CHAT_MODEL',
  'CHAT_TIMEOUT_MS',
  'CHAT_MAX_MESSAGES',
  'CHAT_MAX_MESSAGE_CHARS',
  'CHAT_MAX_TOTAL_CHARS',
  'CHAT_MAX_TOKENS',
  'TTS_ENGINE',
  'TTS_BASE_URL',
  'TTS_API_KEY',
  'TTS_MODEL',
  'TTS_VOICES',
  'TTS_VOICE',
  'TTS_TIMEOUT_MS',
  'TTS_MAX_CHARS',
  'TTS_MAX_CONCURRENCY',
  'TTS_MAX_QUEUE',
  'TTS_MAX_AUDIO_BYTES',
  'ESPEAK_PATH',
  'ESPEAK_DATA_PATH',
  'PATH',
  'MEDIA_RATE_LIMIT_PER_MINUTE',
  'ANON_COMPUTE_CONCURRENCY',
  'ANON_COMPUTE_BUDGET_MS',
  'WEBHOOK_ALLOW_PRIVATE_TARGETS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_RETRY_BASE_MS',
  'WEBHOOK_RETRY_MAX_DELAY_MS',
  'WEBHOOK_RETRY_WINDOW_SECONDS',
  'WEBHOOK_DISABLE_AFTER_SECONDS',
  'WEBHOOK_POLL_MS',
  'WEBHOOK_CONCURRENCY',
];

/**
 * Prefixes no other software uses for its own variables here: any unknown name under one of
 * them is a slip. Generic ones (SESSION_, LOG_, DATA_) are left to the spelling check, since
 * desktops and tools set e.g. SESSION_MANAGER.
 */
const FAMILIES = [
  'QRAIL_',
  'BILLING_',
  'STRIPE_',
  'SANDBOX_',
  'EXECUTION_',
  'IONQ_',
  'IBM_QUANTUM_',
  'COUPLING_',
  'JOBS_',
  'CHAT_',
  'TTS_',
  'ESPEAK_',
  'MEDIA_',
  'LOGIN_',
  'CIRCUIT_',
  'RATE_LIMIT_',
  'SHUTDOWN_',
  'PASSWORD_ARGON2_',
  'ANON_COMPUTE_',
  'WEBHOOK_',
];

/** Kubernetes service links for a Service named "qrail", and variables only the test suite reads. */
const NOT_OURS = /^QRAIL_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9_]+)?|PORT(?:_\d+_(?:TCP|UDP|SCTP)(?:_(?:PROTO|PORT|ADDR))?)?|TEST_[A-Z0-9_]+)$/;

/** Edit distance counting a swap of neighbours as one edit (PROT → PORT), stopping early past `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (before[j - 2] ?? 0) + 1);
      cur.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
    before = prev;
    prev = cur;
  }
  return prev[b.length] ?? max + 1;
}

export interface UnknownVariable {
  readonly name: string;
  /** The known variable it is probably a misspelling of, if any. */
  readonly didYouMean: string | undefined;
}

/** Set variables that look like qrail settings but are none, in name order. */
export function unknownVariables(env: Readonly<Record<string, string | undefined>>, known: readonly string[] = KNOWN_VARIABLES): UnknownVariable[] {
  const knownSet = new Set(known);
  const secretFiles = new Set(SECRET_VARIABLES.map((n) => `${n}_FILE`));
  const out: UnknownVariable[] = [];
  const names = Object.entries(env)
    .filter(([, v]) => v !== undefined)
    .map(([n]) => n)
    .sort();
  for (const name of names) {
    if (knownSet.has(name) || NOT_OURS.test(name) || secretFiles.has(name)) continue;
    // Short names get one edit (HOME is not a misspelt HOST); longer ones two.
    const max = name.length < 8 ? 1 : 2;
    const near = known.find((k) => k.length >= 4 && distance(name, k, max) <= max);
    if (near !== undefined || FAMILIES.some((f) => name.startsWith(f))) out.push({ name, didYouMean: near });
  }
  return out;
}
