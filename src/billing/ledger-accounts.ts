/**
 * Names of the ledger accounts (DESIGN §3). Every transfer moves money from one to
 * another; the sum over all of them is always zero. User accounts hold what a customer
 * owns (positive); system accounts mirror where the money came from or went (their
 * balances are the negation of what they gave out).
 */
export const PLATFORM_REVENUE = 'platform:revenue';
export const PROCESSOR_CLEARING = 'processor:clearing';
export const PROMOTIONAL_CREDIT = 'platform:promotional';

export const availableAccount = (accountId: string): string => `acct:${accountId}:available`;
export const heldAccount = (accountId: string): string => `acct:${accountId}:held`;

export const SYSTEM_ACCOUNTS = [PLATFORM_REVENUE, PROCESSOR_CLEARING, PROMOTIONAL_CREDIT] as const;
