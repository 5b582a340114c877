import { ConfigError } from '../config/config.js';
import { DEFAULT_COUPLING_SETTINGS, type CouplingSettings } from './analyze-coupling.js';

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const v = Number(raw.trim());
  if (v < min || v > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${v}`);
  return v;
}

/** Most qubits an operator may allow: 2^26 amplitudes are 1 GiB of state. */
export const MEASURED_MAX_QUBITS_CEILING = 26;

export interface CouplingRouteSettings extends CouplingSettings {
  readonly ratePerMinute: number;
}

/**
 * COUPLING_MEASURED_MAX_QUBITS (default 20, 1..26), COUPLING_TIME_BUDGET_MS (default 10000,
 * 1..600000), COUPLING_RATE_LIMIT_PER_MINUTE (default 120). Invalid values stop the start-up.
 */
export function couplingSettingsFromEnv(env: Env): CouplingRouteSettings {
  return Object.freeze({
    measuredMaxQubits: int(env, 'COUPLING_MEASURED_MAX_QUBITS', DEFAULT_COUPLING_SETTINGS.measuredMaxQubits, 1, MEASURED_MAX_QUBITS_CEILING),
    timeBudgetMs: int(env, 'COUPLING_TIME_BUDGET_MS', DEFAULT_COUPLING_SETTINGS.timeBudgetMs, 1, 600_000),
    ratePerMinute: int(env, 'COUPLING_RATE_LIMIT_PER_MINUTE', 120, 1, 10_000_000),
  });
}
