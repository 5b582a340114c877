export * from './ledger.js';
export * from './money.js';
export { BILLING_ERRORS } from './error-codes.js';
export { getHeldJob, markHeldJobContinued, type HeldJobRecord, type HeldJobStatus } from './store/hardware-sql.js';
export type { SpendControls } from './spend-controls.js';
