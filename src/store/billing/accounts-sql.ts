/** The AccountDirectory port (src/billing/ports.ts): the users billing looks up. */
import type { AccountDirectory } from '../../billing/ports.js';
import { queryable } from './unit-of-work.js';

export const sqlAccountDirectory: AccountDirectory = {
  async emailOf(tx, accountId) {
    const r = await queryable(tx).query<{ email: string }>('SELECT email FROM users WHERE account_id = $1 ORDER BY created_at LIMIT 1', [accountId]);
    return r.rows[0]?.email ?? null;
  },
  async byEmail(tx, email) {
    const r = await queryable(tx).query<{ account_id: string; email: string }>('SELECT account_id, email FROM users WHERE lower(email) = lower($1)', [email]);
    const u = r.rows[0];
    return u === undefined ? null : { accountId: u.account_id, email: u.email };
  },
};
