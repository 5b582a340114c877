import { ConfigError, type Env } from './env-parser.js';

/**
 * Secrets a deployment may hand over as files instead of variables (Docker and Kubernetes secrets
 * are files; a variable's value shows in `docker inspect` and /proc/<pid>/environ of its children).
 * `X_FILE=/run/secrets/x` sets X to that file's content, without its final line break.
 */
export const SECRET_VARIABLES: readonly string[] = [
  'DATABASE_URL',
  'REDIS_URL',
  'METRICS_TOKEN',
  'QRAIL_OPERATOR_TOKEN',
  'SMTP_URL',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'SANDBOX_WEBHOOK_SECRET',
  'IONQ_API_KEY',
  'IBM_QUANTUM_API_KEY',
  'CHAT_API_KEY',
  'TTS_API_KEY',
];

/** The environment with every `X_FILE` read into X; setting both is refused (which one wins would be a guess). */
export function withSecretFiles(env: Env, readFile: (path: string) => string): Env {
  const out: Record<string, string | undefined> = { ...env };
  for (const name of SECRET_VARIABLES) {
    const path = env[`${name}_FILE`];
    if (path === undefined || path === '') continue;
    if (env[name] !== undefined && env[name] !== '') throw new ConfigError(`${name}_FILE`, `cannot be set together with ${name}`);
    let value: string;
    try {
      value = readFile(path);
    } catch (e) {
      throw new ConfigError(`${name}_FILE`, `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
    out[name] = value.replace(/\r?\n$/, '');
  }
  return out;
}
