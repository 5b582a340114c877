import type { ClosureRepository } from '../../auth/account-closure.js';
import type { Database, Queryable } from '../db.js';
import { captureHold, lockWallet, placeHold } from '../billing/ledger-sql.js';
import { mailUser } from './account-repository.js';
import { formatMicros } from '../../billing/money.js';

const count = async (q: Queryable, sql: string, params: unknown[]): Promise<number> => Number((await q.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);

type Row = Record<string, unknown>;

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());

/** Micro-USD text as a six-decimal USD string. */
const usd = (v: unknown): string => formatMicros(BigInt(String(v)));

export function pgClosureRepository(db: Database): ClosureRepository {
  return {
    async close({ accountId, userId, acceptForfeiture, now, mail }) {
      return db.tx(async (q) => {
        // The wallet's lock first: holds and credits wait behind it, so nothing lands meanwhile.
        const wallet = await lockWallet(q, accountId);
        const openHolds = await count(q, "SELECT count(*)::text AS n FROM billing_holds WHERE account_id = $1 AND status = 'pending'", [accountId]);
        const runningJobs =
          (await count(q, "SELECT count(*)::text AS n FROM jobs WHERE account_id = $1 AND status NOT IN ('completed', 'failed')", [accountId])) +
          (await count(q, "SELECT count(*)::text AS n FROM execution_jobs WHERE account_id = $1 AND status IN ('queued', 'running')", [accountId]));
        if (openHolds > 0 || runningJobs > 0) return { kind: 'busy' as const, openHolds, runningJobs };
        const available = BigInt(wallet.available_micros);
        if (available > 0n && !acceptForfeiture) return { kind: 'unsettled' as const, availableMicros: available };
        // A closed account spends nothing more: no limits stand in the settlement's way, no recharge charges a card.
        await q.query(
          'UPDATE billing_wallets SET daily_limit_micros = NULL, monthly_limit_micros = NULL, per_job_max_micros = NULL, ar_enabled = false, ar_requested_at = NULL WHERE account_id = $1',
          [accountId],
        );
        if (available > 0n) {
          // Forfeiture through the ledger's own functions: available → held → platform revenue.
          const description = 'Account closed: available balance forfeited';
          const hold = await placeHold(q, {
            accountId,
            kind: 'job',
            refId: `account-close:${accountId}`,
            amountMicros: available,
            description,
            product: 'account_close',
            expiresAt: new Date(now.getTime() + 3_600_000),
            now,
          });
          await captureHold(q, { holdId: hold.holdId, amountMicros: available, description, accountId });
        }
        // The notice goes to the address before it is erased.
        await mailUser(q, userId, mail(available));
        const credentials = (await q.query('UPDATE agent_credentials SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL', [accountId, now])).rowCount;
        const sessions = (await q.query('UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL', [userId, now])).rowCount;
        // Personal data elsewhere: addresses and agents of sessions, pending links, second factor, the email.
        await q.query('UPDATE sessions SET ip = NULL, user_agent = NULL WHERE user_id = $1', [userId]);
        await q.query('DELETE FROM account_tokens WHERE user_id = $1', [userId]);
        await q.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
        await q.query('DELETE FROM mfa_challenges WHERE user_id = $1', [userId]);
        await q.query(`UPDATE mail_outbox SET to_address = 'erased@closed.invalid', text_body = '', html_body = '' WHERE user_id = $1 AND template <> 'account_closed'`, [userId]);
        await q.query(
          `UPDATE users SET email = 'closed+' || id::text || '@closed.invalid', password_hash = '!closed', totp_secret = NULL, totp_pending_secret = NULL,
             totp_enabled_at = NULL, totp_last_step = NULL, closed_at = $2 WHERE id = $1`,
          [userId, now],
        );
        await q.query('UPDATE accounts SET closed_at = $2 WHERE id = $1', [accountId, now]);
        return { kind: 'closed' as const, forfeitedMicros: available, closedAt: now, credentialsRevoked: credentials, sessionsRevoked: sessions };
      });
    },
    async exportAccount(accountId, userId) {
      return db.tx(async (q) => {
        const all = async (sql: string, id: string) => (await q.query<Row>(sql, [id])).rows;
        const u = (await all('SELECT id, account_id, email, created_at, email_verified_at, totp_enabled_at, password_changed_at FROM users WHERE id = $1', userId))[0];
        const w = (await all('SELECT available_micros::text AS available, held_micros::text AS held FROM billing_wallets WHERE account_id = $1', accountId))[0];
        return {
          profile: {
            user_id: u?.['id'],
            account_id: u?.['account_id'],
            email: u?.['email'],
            created_at: iso(u?.['created_at']),
            email_verified_at: iso(u?.['email_verified_at']),
            two_factor_enabled: u?.['totp_enabled_at'] !== null,
            password_changed_at: iso(u?.['password_changed_at']),
          },
          wallet: w === undefined ? null : { available: usd(w['available']), held: usd(w['held']) },
          sessions: (await all('SELECT id, created_at, last_used_at, revoked_at, ip, user_agent FROM sessions WHERE user_id = $1 ORDER BY created_at, id', userId)).map((r) => ({
            session_id: r['id'],
            created_at: iso(r['created_at']),
            last_used_at: iso(r['last_used_at']),
            revoked_at: iso(r['revoked_at']),
            ip: r['ip'],
            user_agent: r['user_agent'],
          })),
          credentials: (
            await all('SELECT id, name, scopes, secret_hint, created_at, expires_at, revoked_at, last_used_at FROM agent_credentials WHERE account_id = $1 ORDER BY created_at, id', accountId)
          ).map((r) => ({
            credential_id: r['id'],
            name: r['name'],
            scopes: r['scopes'],
            secret_hint: r['secret_hint'],
            created_at: iso(r['created_at']),
            expires_at: iso(r['expires_at']),
            revoked_at: iso(r['revoked_at']),
            last_used_at: iso(r['last_used_at']),
          })),
          jobs: (
            await all(
              `SELECT id, capability_id, status, created_at, updated_at, max_total_price_micros::text AS max_total, quoted_price_micros::text AS quoted,
                 reserved_price_micros::text AS reserved, error_code, tags, receipt_reference, receipt FROM jobs WHERE account_id = $1 ORDER BY created_at, id`,
              accountId,
            )
          ).map((r) => ({
            job_id: r['id'],
            capability_id: r['capability_id'],
            status: r['status'],
            created_at: iso(r['created_at']),
            updated_at: iso(r['updated_at']),
            max_total_price: usd(r['max_total']),
            quoted_price: usd(r['quoted']),
            reserved_price: usd(r['reserved']),
            error_code: r['error_code'],
            tags: r['tags'],
            receipt_reference: r['receipt_reference'],
            receipt: r['receipt'],
          })),
          execution_jobs: (
            await all(
              'SELECT id, provider, device, kind, status, shots, estimated_micros::text AS estimated, actual_micros::text AS actual, error_code, created_at FROM execution_jobs WHERE account_id = $1 ORDER BY created_at, id',
              accountId,
            )
          ).map((r) => ({
            job_id: r['id'],
            provider: r['provider'],
            device: r['device'],
            kind: r['kind'],
            status: r['status'],
            shots: r['shots'],
            estimated_cost: usd(r['estimated']),
            actual_cost: r['actual'] === null ? null : usd(r['actual']),
            error_code: r['error_code'],
            created_at: iso(r['created_at']),
          })),
          holds: (
            await all(
              `SELECT id, kind, ref_id, description, status, amount_micros::text AS amount, captured_micros::text AS captured, released_micros::text AS released,
                 refunded_micros::text AS refunded, created_at, resolved_at FROM billing_holds WHERE account_id = $1 ORDER BY created_at, id`,
              accountId,
            )
          ).map((r) => ({
            hold_id: r['id'],
            kind: r['kind'],
            ref_id: r['ref_id'],
            description: r['description'],
            status: r['status'],
            amount: usd(r['amount']),
            captured: usd(r['captured']),
            released: usd(r['released']),
            refunded: usd(r['refunded']),
            created_at: iso(r['created_at']),
            resolved_at: iso(r['resolved_at']),
          })),
          ledger: {
            transfers: (
              await all(
                'SELECT id, kind, from_account, to_account, amount_micros::text AS amount, description, hold_id, created_at FROM ledger_transfers WHERE account_id = $1 ORDER BY created_at, id',
                accountId,
              )
            ).map((r) => ({
              transfer_id: r['id'],
              kind: r['kind'],
              from_account: r['from_account'],
              to_account: r['to_account'],
              amount: usd(r['amount']),
              description: r['description'],
              hold_id: r['hold_id'],
              created_at: iso(r['created_at']),
            })),
            entries: (await all('SELECT transfer_id, ledger_account, amount_micros::text AS amount, created_at FROM ledger_entries WHERE account_id = $1 ORDER BY id', accountId)).map((r) => ({
              transfer_id: r['transfer_id'],
              ledger_account: r['ledger_account'],
              amount: usd(r['amount']),
              created_at: iso(r['created_at']),
            })),
          },
        };
      });
    },
  };
}
