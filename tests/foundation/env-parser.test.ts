import { describe, expect, it } from 'vitest';
import { ConfigError, bool, int, optional } from '../../src/config/env-parser.js';
import { loadConfig } from '../../src/config/config.js';
import { loadBillingConfig } from '../../src/billing/billing-config.js';
import { couplingSettingsFromEnv } from '../../src/coupling/settings.js';
import { executionSettings } from '../../src/execution/settings.js';
import { jobsSettings } from '../../src/composition/jobs.js';
import { parseMediaSettings } from '../../src/media/media-settings.js';
import { anonymousComputeLimits } from '../../src/config/compute-limits.js';

describe('the one environment parser', () => {
  it('integers: unset, empty or blank is the default; blanks around digits are ignored; bounds are inclusive', () => {
    expect(int({}, 'N', 7, 1, 10)).toBe(7);
    expect(int({ N: '' }, 'N', 7, 1, 10)).toBe(7);
    expect(int({ N: '   ' }, 'N', 7, 1, 10)).toBe(7);
    expect(int({ N: ' 10 ' }, 'N', 7, 1, 10)).toBe(10);
    expect(int({ N: '1' }, 'N', 7, 1, 10)).toBe(1);
    expect(int({ N: '-3' }, 'N', 0, -5, 5)).toBe(-3);
  });

  it('integers: anything else is one line naming the variable', () => {
    for (const bad of ['1.5', '1e3', '0x10', 'ten', '5s', '+-1', '1 000']) {
      expect(() => int({ N: bad }, 'N', 7, 1, 10)).toThrow(new ConfigError('N', `must be an integer, got "${bad}"`));
    }
    expect(() => int({ N: '11' }, 'N', 7, 1, 10)).toThrow('Invalid configuration: N must be between 1 and 10, got 11');
    expect(() => int({ N: '-1' }, 'N', 7, 0, 10)).toThrow('Invalid configuration: N must be between 0 and 10, got -1');
    expect(() => int({ N: '99999999999999999999999' }, 'N', 7, 0, 10)).toThrow(/N must be between 0 and 10/);
  });

  it('booleans: exactly true/false (on/off for switches), unset or empty is the default', () => {
    expect(bool({}, 'B', true)).toBe(true);
    expect(bool({ B: '' }, 'B', false)).toBe(false);
    expect(bool({ B: 'true' }, 'B', false)).toBe(true);
    expect(bool({ B: 'false' }, 'B', true)).toBe(false);
    expect(bool({ B: 'on' }, 'S', false, 'on/off')).toBe(false);
    expect(bool({ S: 'on' }, 'S', false, 'on/off')).toBe(true);
    expect(bool({ S: 'off' }, 'S', true, 'on/off')).toBe(false);
    for (const bad of ['on', 'yes', '1', 'TRUE', ' true']) expect(() => bool({ B: bad }, 'B', false), bad).toThrow(`Invalid configuration: B must be true or false, got "${bad}"`);
    expect(() => bool({ S: 'enabled' }, 'S', true, 'on/off')).toThrow('Invalid configuration: S must be on or off (or true or false), got "enabled"');
  });

  it('optional strings are trimmed; blank is unset', () => {
    expect(optional({ S: '  x ' }, 'S')).toBe('x');
    expect(optional({ S: ' ' }, 'S')).toBeUndefined();
    expect(optional({}, 'S')).toBeUndefined();
  });

  // Each module with settings used to carry its own integer parser with its own rules (one took
  // signs, one trimmed, one said "whole number"); one sample per module proves they share this one.
  it('every module that reads integers applies the same rules and message', () => {
    const cases: [string, (env: Record<string, string>) => unknown][] = [
      ['PORT', (env) => loadConfig(env)],
      ['BILLING_QUOTE_TTL_SECONDS', (env) => loadBillingConfig(loadConfig(env))],
      ['COUPLING_TIME_BUDGET_MS', (env) => couplingSettingsFromEnv(env)],
      ['EXECUTION_MAX_SHOTS', (env) => executionSettings(env)],
      ['JOBS_LEASE_MS', (env) => jobsSettings(loadConfig(env))],
      ['CHAT_TIMEOUT_MS', (env) => parseMediaSettings(env)],
      ['ANON_COMPUTE_BUDGET_MS', (env) => anonymousComputeLimits(env)],
    ];
    for (const [name, parse] of cases) {
      expect(() => parse({ [name]: '12abc' }), name).toThrow(`Invalid configuration: ${name} must be an integer, got "12abc"`);
      expect(() => parse({ [name]: '-1' }), name).toThrow(new RegExp(`^Invalid configuration: ${name} must be between \\d+ and \\d+, got -1$`));
      expect(() => parse({ [name]: '   ' }), name).not.toThrow();
    }
  });
});
