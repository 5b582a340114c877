/**
 * The one parser of environment values, used by every module that has settings (the core
 * configuration, billing, coupling, execution, jobs, media, compute limits). One rule set, so a
 * variable behaves the same whichever module reads it:
 * - unset, empty or only blanks: the default;
 * - integers: optional sign and digits (surrounding blanks ignored), then the bounds; anything
 *   else stops the start with one line naming the variable;
 * - booleans: exactly `true` or `false` (a switch documented as on/off also takes `on`/`off`).
 * Only `src/main.ts` reads `process.env`; these functions take the record it hands over.
 */
export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

/** The value with surrounding blanks removed, or undefined when unset or blank. */
export function optional(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

export function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return def;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${env[name] ?? ''}"`);
  const v = Number(raw);
  if (!(v >= min && v <= max)) throw new ConfigError(name, `must be between ${min} and ${max}, got ${raw}`);
  return v;
}

/**
 * A silently false `TRUST_PROXY=yes` would put every client behind the balancer on one
 * rate-limit bucket, so nothing but the documented spellings is accepted (not even ` true`).
 */
export function bool(env: Env, name: string, def: boolean, spelling: 'true/false' | 'on/off' = 'true/false'): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (raw === 'true' || (spelling === 'on/off' && raw === 'on')) return true;
  if (raw === 'false' || (spelling === 'on/off' && raw === 'off')) return false;
  throw new ConfigError(name, `must be ${spelling === 'on/off' ? 'on or off (or true or false)' : 'true or false'}, got "${raw}"`);
}
