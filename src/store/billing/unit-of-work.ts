import type { BillingTx, UnitOfWork } from '../../billing/ports.js';
import type { Database, Queryable } from '../db.js';

/** In the store a billing transaction handle is the transaction's Queryable. */
export const billingTx = (q: Queryable): BillingTx => q as unknown as BillingTx;
export const queryable = (tx: BillingTx): Queryable => tx as unknown as Queryable;

export function sqlUnitOfWork(db: Database): UnitOfWork {
  return {
    run: (fn) => db.tx((q) => fn(billingTx(q))),
    autocommit: billingTx(db),
  };
}
