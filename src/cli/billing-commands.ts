import type { Config } from '../config/config.js';
import type { Database } from '../store/db.js';
import { sqlBillingPorts } from '../store/billing/sql-billing-ports.js';
import { openDatabase } from '../store/open-database.js';
import { grantCreditByEmail, ledgerCheck } from '../billing/operator.js';
import { isAppError } from '../errors/app-error.js';
import type { CliCommand, CliIo } from './cli-command.js';

/**
 * `qrail credit grant` and `qrail ledger check`. On PostgreSQL they work on the database
 * directly (the service may be running: every movement takes the wallet row lock). On
 * embedded PGlite one process owns the data, so they ask the running service through its
 * operator endpoints, authenticated with QRAIL_OPERATOR_TOKEN.
 */
export interface BillingCliDeps {
  /** Opens the database (tests inject one); the command closes it unless `keepOpen`. */
  readonly openDb?: () => Promise<Database>;
  readonly keepOpen?: boolean;
  readonly fetch?: typeof fetch;
}

function flags(args: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out.set(a.slice(2, eq), a.slice(eq + 1));
    else {
      out.set(a.slice(2), args[i + 1] ?? '');
      i += 1;
    }
  }
  return out;
}

function serviceUrl(config: Config, f: Map<string, string>): string {
  return (f.get('url') ?? config.env['QRAIL_URL'] ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`).replace(/\/+$/, '');
}

async function viaService(
  config: Config,
  f: Map<string, string>,
  io: CliIo,
  deps: BillingCliDeps,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> } | null> {
  if (config.operatorToken === undefined) {
    io.err(
      'This deployment uses embedded PGlite, which only the running service may open.\nSet QRAIL_OPERATOR_TOKEN (the same value the service runs with) so the command can use its operator endpoint, or use DATABASE_URL.\n',
    );
    return null;
  }
  const url = `${serviceUrl(config, f)}${path}`;
  try {
    const res = await (deps.fetch ?? fetch)(url, {
      method,
      headers: { authorization: `Bearer ${config.operatorToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  } catch (e) {
    io.err(`Cannot reach the service at ${url}: ${e instanceof Error ? e.message : String(e)}\nIs it running? Pass --url http://host:port if it listens elsewhere.\n`);
    return null;
  }
}

async function withDb<T>(config: Config, deps: BillingCliDeps, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = deps.openDb !== undefined ? await deps.openDb() : await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    return await fn(db);
  } finally {
    if (!deps.keepOpen) await db.close();
  }
}

const direct = (config: Config, deps: BillingCliDeps) => config.databaseUrl !== undefined || deps.openDb !== undefined;

export function creditGrantCommand(deps: BillingCliDeps = {}): CliCommand {
  return {
    summary: 'credit grant --email <e> --amount <usd> [--reason <text>] [--idempotency-key <k>] [--url <service>]: promotional credit through the ledger',
    async run(config, args, io) {
      const f = flags(args);
      const email = f.get('email');
      const amount = f.get('amount');
      if (!email || !amount) {
        io.err('usage: qrail credit grant --email <email> --amount <usd> [--reason <text>] [--idempotency-key <key>]\n');
        return 2;
      }
      const reason = f.get('reason');
      const key = f.get('idempotency-key');
      let data: Record<string, unknown>;
      if (direct(config, deps)) {
        try {
          data = await withDb(config, deps, (db) => grantCreditByEmail(sqlBillingPorts(db), { email, amount, ...(reason ? { reason } : {}), ...(key ? { idempotencyKey: key } : {}) }));
        } catch (e) {
          if (isAppError(e)) {
            io.err(`${e.code}: ${e.message}\n`);
            return 1;
          }
          throw e;
        }
      } else {
        const r = await viaService(config, f, io, deps, 'POST', '/v1/billing/operator/credit-grant', { email, amount, ...(reason ? { reason } : {}), ...(key ? { idempotency_key: key } : {}) });
        if (r === null) return 2;
        if (r.status !== 200) {
          const err = r.json['error'] as { code?: string; message?: string } | undefined;
          io.err(`${err?.code ?? r.status}: ${err?.message ?? 'request failed'}\n`);
          return 1;
        }
        data = r.json['data'] as Record<string, unknown>;
      }
      const w = data['wallet'] as { available: string } | undefined;
      io.out(`${data['credited'] ? 'granted' : 'already granted (same idempotency key)'} ${String(data['amount'])} USD to ${String(data['email'])}; available now ${w?.available ?? '?'} USD\n`);
      return 0;
    },
  };
}

export function ledgerCheckCommand(deps: BillingCliDeps = {}): CliCommand {
  return {
    summary: 'ledger check [--url <service>]: recompute every balance from the entries; exits 1 on any broken invariant',
    async run(config, args, io) {
      const f = flags(args);
      let result: { ok: boolean; problems: string[]; checked: unknown };
      if (direct(config, deps)) {
        result = await withDb(config, deps, (db) => ledgerCheck(sqlBillingPorts(db)));
      } else {
        const r = await viaService(config, f, io, deps, 'GET', '/v1/billing/operator/ledger-check');
        if (r === null) return 2;
        if (r.status !== 200) {
          const err = r.json['error'] as { code?: string; message?: string } | undefined;
          io.err(`${err?.code ?? r.status}: ${err?.message ?? 'request failed'}\n`);
          return 2;
        }
        result = r.json['data'] as typeof result;
      }
      const c = result.checked as { transfers?: number; holds?: number; wallets?: number };
      if (result.ok) {
        io.out(`ledger OK: ${c.transfers ?? 0} transfers, ${c.holds ?? 0} holds, ${c.wallets ?? 0} wallets checked\n`);
        return 0;
      }
      io.err(`ledger BROKEN: ${result.problems.length} problem(s)\n${result.problems.map((p) => `  - ${p}`).join('\n')}\n`);
      return 1;
    },
  };
}

export const BILLING_COMMANDS: Record<string, CliCommand> = {
  'credit grant': creditGrantCommand(),
  'ledger check': ledgerCheckCommand(),
};
