import type { Config } from '../config/config.js';
import type { Database } from '../store/db.js';
import { isAppError } from '../errors/app-error.js';
import { EXIT, type CliCommand, type CliContext, type OptionSpec } from './cli-command.js';
import { printJson, reportFailure } from './output.js';
import { strOption } from './parse-command-line.js';

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

const URL_OPTION: OptionSpec = { type: 'string', value: 'url', description: 'the running service, embedded PGlite only (default: QRAIL_URL, else http://HOST:PORT)' };
const JSON_OPTION: OptionSpec = { type: 'boolean', description: 'machine output: one JSON document on stdout, errors as JSON on stderr' };

export function serviceUrl(config: Config, ctx: CliContext, url: string | undefined): string {
  return (url ?? ctx.remote.url ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`).replace(/\/+$/, '');
}

type ServiceAnswer = { ok: true; data: Record<string, unknown> } | { ok: false; exit: number };

async function viaService(config: Config, ctx: CliContext, deps: BillingCliDeps, url: string | undefined, json: boolean, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ServiceAnswer> {
  if (config.operatorToken === undefined) {
    const message =
      'This deployment uses embedded PGlite, which only the running service may open. Set QRAIL_OPERATOR_TOKEN (the same value the service runs with) so the command can use its operator endpoint, or use DATABASE_URL.';
    return { ok: false, exit: reportFailure(ctx.io, json, { code: 'OPERATOR_TOKEN_MISSING', message }, EXIT.USAGE) };
  }
  const target = `${serviceUrl(config, ctx, url)}${path}`;
  let res: Response;
  try {
    res = await (deps.fetch ?? ctx.fetch ?? fetch)(target, {
      method,
      headers: { authorization: `Bearer ${config.operatorToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (e) {
    const message = `Cannot reach the service at ${target}: ${e instanceof Error ? e.message : String(e)}. Is it running? Pass --url http://host:port if it listens elsewhere.`;
    return { ok: false, exit: reportFailure(ctx.io, json, { code: 'NETWORK_ERROR', message }) };
  }
  const answer = (await res.json().catch(() => ({}))) as { data?: Record<string, unknown>; error?: { code?: string; message?: string; details?: unknown }; meta?: { request_id?: string } };
  if (res.status !== 200 || answer.data === undefined) {
    const err = answer.error;
    return {
      ok: false,
      exit: reportFailure(ctx.io, json, {
        code: err?.code ?? `HTTP_${res.status}`,
        message: err?.message ?? 'request failed',
        status: res.status,
        ...(answer.meta?.request_id === undefined ? {} : { requestId: answer.meta.request_id }),
        ...(err?.details === undefined ? {} : { details: err.details }),
      }),
    };
  }
  return { ok: true, data: answer.data };
}

async function withDb<T>(config: Config, deps: BillingCliDeps, fn: (db: Database) => Promise<T>): Promise<T> {
  const { openDatabase } = await import('../store/open-database.js');
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
    name: 'credit grant',
    summary: 'operator: promotional credit to an account through the ledger',
    description: `With DATABASE_URL the command writes to PostgreSQL directly (safe beside running
services). On embedded PGlite it asks the running service's operator endpoint, authenticated
with QRAIL_OPERATOR_TOKEN (the same value the service runs with). An idempotency key makes a
repeated command credit once.`,
    options: {
      email: { type: 'string', value: 'email', required: true, description: "the account owner's email" },
      amount: { type: 'string', value: 'usd', required: true, description: 'USD, up to six decimals ("12.5")' },
      reason: { type: 'string', value: 'text', description: 'shown on the ledger entry (default: promotional credit (operator))' },
      'idempotency-key': { type: 'string', value: 'key', description: 'a second grant with the same key (same account) credits nothing' },
      url: URL_OPTION,
      json: JSON_OPTION,
    },
    examples: [
      'qrail credit grant --email ada@example.com --amount 25 --idempotency-key welcome-ada',
      'QRAIL_OPERATOR_TOKEN=… qrail credit grant --email ada@example.com --amount 5 --url http://127.0.0.1:8080',
    ],
    async run(input, ctx) {
      const config = await ctx.serverConfig();
      const o = input.options;
      const json = o['json'] === true;
      const email = strOption(o['email']) ?? '';
      const amount = strOption(o['amount']) ?? '';
      const reason = strOption(o['reason']);
      const key = strOption(o['idempotency-key']);
      let data: Record<string, unknown>;
      if (direct(config, deps)) {
        const { sqlBillingPorts } = await import('../store/billing/sql-billing-ports.js');
        const { grantCreditByEmail } = await import('../billing/operator.js');
        try {
          data = await withDb(config, deps, (db) => grantCreditByEmail(sqlBillingPorts(db), { email, amount, ...(reason ? { reason } : {}), ...(key ? { idempotencyKey: key } : {}) }));
        } catch (e) {
          if (isAppError(e)) return reportFailure(ctx.io, json, { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) });
          throw e;
        }
      } else {
        const r = await viaService(config, ctx, deps, strOption(o['url']), json, 'POST', '/v1/billing/operator/credit-grant', {
          email,
          amount,
          ...(reason ? { reason } : {}),
          ...(key ? { idempotency_key: key } : {}),
        });
        if (!r.ok) return r.exit;
        data = r.data;
      }
      if (json) {
        printJson(ctx.io, data);
        return EXIT.OK;
      }
      const w = data['wallet'] as { available: string } | undefined;
      ctx.io.out(`${data['credited'] ? 'granted' : 'already granted (same idempotency key)'} ${String(data['amount'])} USD to ${String(data['email'])}; available now ${w?.available ?? '?'} USD\n`);
      return EXIT.OK;
    },
  };
}

export function ledgerCheckCommand(deps: BillingCliDeps = {}): CliCommand {
  return {
    name: 'ledger check',
    summary: 'operator: recompute every balance from the entries; exits 1 on any broken invariant',
    description: `Checks that every transfer balances, every hold is consistent and every cached wallet
balance equals the sum of its entries. Database access as for \`credit grant\`.`,
    options: { url: URL_OPTION, json: JSON_OPTION },
    examples: ['qrail ledger check', 'qrail ledger check --json'],
    async run(input, ctx) {
      const config = await ctx.serverConfig();
      const json = input.options['json'] === true;
      let result: { ok: boolean; problems: string[]; checked: unknown };
      if (direct(config, deps)) {
        const { sqlBillingPorts } = await import('../store/billing/sql-billing-ports.js');
        const { ledgerCheck } = await import('../billing/operator.js');
        result = await withDb(config, deps, (db) => ledgerCheck(sqlBillingPorts(db)));
      } else {
        const r = await viaService(config, ctx, deps, strOption(input.options['url']), json, 'GET', '/v1/billing/operator/ledger-check');
        if (!r.ok) return r.exit;
        result = r.data as typeof result;
      }
      if (json) printJson(ctx.io, result);
      const c = result.checked as { transfers?: number; holds?: number; wallets?: number };
      if (result.ok) {
        if (!json) ctx.io.out(`ledger OK: ${c.transfers ?? 0} transfers, ${c.holds ?? 0} holds, ${c.wallets ?? 0} wallets checked\n`);
        return EXIT.OK;
      }
      if (!json) ctx.io.err(`ledger BROKEN: ${result.problems.length} problem(s)\n${result.problems.map((p) => `  - ${p}`).join('\n')}\n`);
      return EXIT.FAILURE;
    },
  };
}

export const BILLING_COMMANDS: readonly CliCommand[] = [creditGrantCommand(), ledgerCheckCommand()];
