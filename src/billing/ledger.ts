/**
 * The ledger API other modules call (jobs, execution, CLI). Every function takes the
 * caller's `Queryable` — run it inside `db.tx(async (q) => …)` together with your own rows
 * so that they and the money movement commit or roll back together.
 */
export {
  placeHold,
  captureHold,
  releaseHold,
  expireHold,
  refundCapture,
  grantCredit,
  creditPayment,
  getWallet,
  getHold,
  findHoldByRef,
  lockWallet,
  spentSince,
  type PlaceHoldInput,
  type CaptureResult,
  type ReleaseResult,
  type CreditResult,
  type HoldRecord,
  type HoldKind,
  type HoldStatus,
  type Wallet,
} from './store/ledger-sql.js';
export { checkLedgerInvariants } from './store/invariants-sql.js';
export { expireDueHolds, HoldExpirySweeper } from './hold-expiry.js';
export { formatMicros, parseUsd } from './money.js';
