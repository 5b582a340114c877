import type { Config } from '../config/config.js';
import { ConfigError, bool, int } from '../config/env-parser.js';

/** Billing settings, parsed from `config.env` (see docs/billing.md for every variable). */
export interface BillingConfig {
  readonly processor: 'sandbox' | 'stripe';
  readonly stripe: { readonly secretKey: string; readonly webhookSecret: string | undefined; readonly host?: string; readonly port?: number; readonly protocol?: 'http' | 'https' } | undefined;
  readonly sandboxWebhookSecret: string;
  /** Whether the sandbox posts its events to this service's webhook endpoint itself. */
  readonly sandboxAutoDeliver: boolean;
  readonly quoteTtlSeconds: number;
  readonly sweepIntervalMs: number;
  readonly autoRechargeIntervalMs: number;
  /** The worker role's periodic ledger check (0 = off). */
  readonly ledgerCheckIntervalSeconds: number;
  /** How often the worker logs the transfers committed since (the money journal); 0 = off. */
  readonly ledgerJournalIntervalMs: number;
  readonly publicBaseUrl: string;
}

export function loadBillingConfig(config: Config): BillingConfig {
  const env = config.env;
  const key = env['STRIPE_SECRET_KEY'] === '' ? undefined : env['STRIPE_SECRET_KEY'];
  const chosen = env['BILLING_PROCESSOR'] ?? (key !== undefined ? 'stripe' : 'sandbox');
  if (chosen !== 'sandbox' && chosen !== 'stripe') throw new ConfigError('BILLING_PROCESSOR', 'must be sandbox or stripe');
  if (chosen === 'stripe' && key === undefined) throw new ConfigError('STRIPE_SECRET_KEY', 'is required when BILLING_PROCESSOR=stripe');
  const protocol = env['STRIPE_API_PROTOCOL'];
  if (protocol !== undefined && protocol !== 'http' && protocol !== 'https') throw new ConfigError('STRIPE_API_PROTOCOL', 'must be http or https');
  const stripe =
    key === undefined
      ? undefined
      : {
          secretKey: key,
          webhookSecret: env['STRIPE_WEBHOOK_SECRET'] === '' ? undefined : env['STRIPE_WEBHOOK_SECRET'],
          ...(env['STRIPE_API_HOST'] ? { host: env['STRIPE_API_HOST'] } : {}),
          ...(env['STRIPE_API_PORT'] ? { port: int(env, 'STRIPE_API_PORT', 443, 1, 65535) } : {}),
          ...(protocol === 'http' || protocol === 'https' ? ({ protocol } as const) : {}),
        };
  return {
    processor: chosen,
    stripe,
    // Random per process unless set: the sandbox delivers its own events in-process, and a
    // fixed public default would let anyone sign events for a sandbox deployment.
    sandboxWebhookSecret: env['SANDBOX_WEBHOOK_SECRET'] || `whsec_sbx_${Array.from(globalThis.crypto.getRandomValues(new Uint8Array(24)), (b) => b.toString(16).padStart(2, '0')).join('')}`,
    sandboxAutoDeliver: bool(env, 'SANDBOX_AUTO_DELIVER', true),
    quoteTtlSeconds: int(env, 'BILLING_QUOTE_TTL_SECONDS', 600, 10, 86_400),
    sweepIntervalMs: int(env, 'BILLING_SWEEP_INTERVAL_MS', 5_000, 100, 3_600_000),
    autoRechargeIntervalMs: int(env, 'BILLING_AUTO_RECHARGE_INTERVAL_MS', 10_000, 100, 3_600_000),
    ledgerCheckIntervalSeconds: int(env, 'BILLING_LEDGER_CHECK_INTERVAL_SECONDS', 900, 0, 86_400),
    ledgerJournalIntervalMs: int(env, 'BILLING_LEDGER_JOURNAL_INTERVAL_MS', 1_000, 0, 3_600_000),
    publicBaseUrl: config.publicBaseUrl,
  };
}
