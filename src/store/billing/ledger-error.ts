import { AppError } from '../../errors/app-error.js';
import { ERROR_CATALOGUE } from '../../errors/catalogue.js';

/** A refusal as the ledger's SQL functions word it (migration 0400). */
export interface LedgerRefusal {
  readonly code: string;
  readonly message: string;
  readonly details?: unknown;
}

const STATUS = new Map(ERROR_CATALOGUE.map((c) => [c.code, c.status]));

/**
 * The AppError of a refusal worded in SQL: code, message and details as the function gave them,
 * the status from the error catalogue. A json value may arrive parsed or as its text (inside a
 * jsonb result, where text keeps the details' key order).
 */
export function ledgerError(refusal: LedgerRefusal | string): AppError {
  const r: LedgerRefusal = typeof refusal === 'string' ? (JSON.parse(refusal) as LedgerRefusal) : refusal;
  const status = STATUS.get(r.code);
  if (status === undefined) throw new Error(`the ledger refused with ${r.code}, which is not in the error catalogue: ${r.message}`);
  return new AppError(r.code, status, r.message, r.details === undefined ? {} : { details: r.details });
}
