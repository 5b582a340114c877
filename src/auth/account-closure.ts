/**
 * Closing an account and exporting its data (issue #26). Closing refuses while money is in
 * flight (open holds, queued or running jobs), settles the wallet by the documented rule (the
 * available balance is forfeited, stated up front: the caller must accept it), revokes every
 * credential and session, keeps the ledger and erases personal data (the email becomes a
 * tombstone). All of it is one transaction of the store.
 */
import { fail } from '../errors/app-error.js';
import { formatMicros } from '../billing/money.js';
import { accountClosedMail } from '../mail/templates.js';
import type { MailContent } from '../mail/mail.js';
import { AUTH_ERRORS } from './error-codes.js';
import type { SessionService } from './session-service.js';
import type { SecondFactor, TwoFactorService } from './two-factor-service.js';

export type CloseOutcome =
  | { readonly kind: 'busy'; readonly openHolds: number; readonly runningJobs: number }
  | { readonly kind: 'unsettled'; readonly availableMicros: bigint }
  | { readonly kind: 'closed'; readonly forfeitedMicros: bigint; readonly closedAt: Date; readonly credentialsRevoked: number; readonly sessionsRevoked: number };

export interface ClosureRepository {
  /**
   * In one transaction under the wallet's lock: the checks, the settlement through the ledger's
   * functions (a hold of the available balance captured to platform revenue), revocations, the
   * closing mail (to the address before it is erased) and the erasure.
   */
  close(i: { accountId: string; userId: string; acceptForfeiture: boolean; now: Date; mail: (forfeitedMicros: bigint) => MailContent }): Promise<CloseOutcome>;
  /** Everything the account holds, as plain JSON values (never a secret or a hash). */
  exportAccount(accountId: string, userId: string): Promise<Record<string, unknown>>;
}

const usd = formatMicros;

export class AccountClosure {
  constructor(
    private readonly repo: ClosureRepository,
    private readonly sessions: SessionService,
    private readonly twoFactor: TwoFactorService,
    private readonly afterClose: () => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  exportData(p: { accountId: string; userId: string }): Promise<Record<string, unknown>> {
    return this.repo.exportAccount(p.accountId, p.userId);
  }

  async close(
    p: { accountId: string; userId: string },
    input: { password: string; factor: SecondFactor | undefined; acceptForfeiture: boolean; ip: string },
  ): Promise<Extract<CloseOutcome, { kind: 'closed' }>> {
    const user = await this.sessions.user(p.userId);
    if (user === null || !(await this.sessions.checkPassword(user, input.password, input.ip))) throw fail(AUTH_ERRORS.CURRENT_PASSWORD_WRONG, 'The password is wrong.');
    if (user.mfaEnabled) {
      if (input.factor === undefined) throw fail(AUTH_ERRORS.MFA_CODE_INVALID, 'Two-factor sign-in is on: closing needs a code or a recovery code.');
      await this.twoFactor.verify(p.userId, input.factor);
    }
    const r = await this.repo.close({
      accountId: p.accountId,
      userId: p.userId,
      acceptForfeiture: input.acceptForfeiture,
      now: this.now(),
      mail: (forfeited) => accountClosedMail(this.now(), forfeited > 0n ? `Its available balance of ${usd(forfeited)} USD was forfeited, as stated when closing.` : 'It had no balance to settle.'),
    });
    if (r.kind === 'busy') {
      throw fail(AUTH_ERRORS.ACCOUNT_BUSY, `The account has ${r.openHolds} open hold(s) and ${r.runningJobs} unfinished job(s); release or wait for them, then close.`, {
        open_holds: r.openHolds,
        running_jobs: r.runningJobs,
      });
    }
    if (r.kind === 'unsettled') {
      throw fail(AUTH_ERRORS.BALANCE_NOT_SETTLED, `Closing forfeits the available balance of ${usd(r.availableMicros)} USD; repeat with accept_forfeiture: true, or spend it first.`, {
        available: usd(r.availableMicros),
        rule: 'forfeit',
      });
    }
    this.afterClose();
    return r;
  }
}
