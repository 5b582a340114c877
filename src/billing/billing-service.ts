import type { Config } from '../config/config.js';
import type { Database } from '../store/db.js';
import type { BackgroundWorker } from '../worker.js';
import { HoldExpirySweeper } from './hold-expiry.js';

/** Billing wired to its adapters; routes reach it as `app.services.billing`. */
export class BillingService {
  readonly workers: BackgroundWorker[];

  constructor(readonly config: Config, readonly db: Database) {
    this.workers = [new HoldExpirySweeper(db, Number(config.env['BILLING_SWEEP_INTERVAL_MS'] ?? 5000))];
  }
}

export function createBillingService(config: Config, db: Database): BillingService {
  return new BillingService(config, db);
}
