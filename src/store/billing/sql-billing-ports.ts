/** Billing's ports on the SQL store (src/billing/ports.ts), for the composition root. */
import type { BillingPorts } from '../../billing/ports.js';
import type { Database } from '../db.js';
import { sqlAccountDirectory } from './accounts-sql.js';
import { sqlBillingReports } from './dashboard-sql.js';
import { sqlHardwareStore } from './hardware-sql.js';
import { sqlLedger } from './ledger-sql.js';
import { sqlPaymentRecords } from './processor-sql.js';
import { sqlSandboxStore } from './sandbox-store-sql.js';
import { queryable, sqlUnitOfWork } from './unit-of-work.js';
import { recordAudit } from '../orgs/org-repository.js';
import { sqlWallets } from './wallets-sql.js';

export function sqlBillingPorts(db: Database): BillingPorts {
  return {
    uow: sqlUnitOfWork(db),
    ledger: sqlLedger,
    wallets: sqlWallets,
    hardware: sqlHardwareStore,
    payments: sqlPaymentRecords,
    reports: sqlBillingReports,
    accounts: sqlAccountDirectory,
    sandbox: sqlSandboxStore(db),
    settingsAudit: { record: (tx, e) => recordAudit(queryable(tx), e.accountId, e.actor, e.action, e.accountId, e.details) },
  };
}
