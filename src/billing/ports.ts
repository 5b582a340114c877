/**
 * Billing's ports: what the billing domain needs from storage, implemented under
 * src/store/billing/ and handed to BillingService by the composition root. Money moves only
 * through `Ledger`, whose implementation calls the ledger's SQL functions (migration 0400):
 * the rules (spend controls, balance, the hold state machine, the auto-recharge trigger) and
 * the words of their refusals live there, once, and the job submission and completion call the
 * same functions. A refusal comes back as the AppError the rule words (INSUFFICIENT_BALANCE,
 * HOLD_NOT_PENDING, …); the caller's transaction then rolls back.
 */
import type {
  AttemptOutcome,
  AttemptRow,
  BalanceMoves,
  CaptureResult,
  CreditResult,
  DayAmount,
  GroupAmount,
  HeldJobRecord,
  HeldJobStatus,
  HoldKind,
  HoldListRow,
  LedgerTransferKind,
  LedgerTransferRow,
  HoldRecord,
  HoldStatus,
  LargestJob,
  PaymentPurpose,
  PaymentRow,
  PlaceHoldInput,
  PlaceHoldResult,
  QuoteRecord,
  RefundResult,
  ReleaseResult,
  Wallet,
  WalletState,
} from './records.js';

declare const billingTx: unique symbol;

/** A transaction opened by `UnitOfWork.run` (or `UnitOfWork.autocommit`): opaque to billing. */
export interface BillingTx {
  readonly [billingTx]: true;
}

export interface UnitOfWork {
  /** Runs `fn` in one transaction: everything done with `tx` commits together or not at all (a throw rolls back). */
  run<T>(fn: (tx: BillingTx) => Promise<T>): Promise<T>;
  /** A handle on which each call is its own transaction: reads, and single changes. */
  readonly autocommit: BillingTx;
}

/** Every movement of money, and the wallet and hold reads around it. Writes take the caller's transaction. */
export interface Ledger {
  /** Creates the wallet row if absent and locks it until the transaction ends (the first lock of every money change). */
  lockWallet(tx: BillingTx, accountId: string): Promise<WalletState>;
  /** The wallet row, not locked; null when the account never had one. */
  readWallet(tx: BillingTx, accountId: string): Promise<WalletState | null>;
  /** Creates the wallet row if absent (no lock). */
  ensureWallet(tx: BillingTx, accountId: string): Promise<void>;
  wallet(tx: BillingTx, accountId: string): Promise<Wallet>;
  /** What holds placed since `since` committed: pending amounts + captured − refunded. */
  spentSince(tx: BillingTx, accountId: string, since: Date): Promise<bigint>;
  /**
   * Moves the amount from available to held once the spend controls and the balance allow it.
   * The same (kind, refId) again with the same account and amount → the existing hold; with
   * anything else → 409 HOLD_EXISTS.
   */
  placeHold(tx: BillingTx, i: PlaceHoldInput): Promise<PlaceHoldResult>;
  /** ≤ the held amount to revenue, the rest back to available — exactly once (a repeat returns the first outcome). */
  captureHold(tx: BillingTx, i: { holdId: string; amountMicros: bigint; description: string; accountId?: string }): Promise<CaptureResult>;
  /** The whole held amount back to available — exactly once; a captured hold → 409 HOLD_NOT_PENDING. */
  releaseHold(tx: BillingTx, i: { holdId: string; reason: string; accountId?: string }): Promise<ReleaseResult>;
  /** Releases the hold if it is still pending; does nothing otherwise (captured, released, expired or unknown). */
  releaseIfPending(tx: BillingTx, holdId: string, reason: string): Promise<void>;
  /** Expires the hold if it is pending and past its expiry at `now`; null when there was nothing to do. */
  expireHold(tx: BillingTx, holdId: string, now: Date): Promise<ReleaseResult | null>;
  refundCapture(tx: BillingTx, i: { holdId: string; amountMicros: bigint; reason: string; accountId?: string }): Promise<RefundResult>;
  /** Promotional credit; the same idempotency key twice credits once. */
  grantCredit(tx: BillingTx, i: { accountId: string; amountMicros: bigint; reason: string; idempotencyKey?: string }): Promise<CreditResult>;
  /** Money paid through the processor; `externalRef` (`checkout:cs_…`, `payment_intent:pi_…`) is credited once, ever. */
  creditPayment(tx: BillingTx, i: { accountId: string; amountMicros: bigint; externalRef: string; description: string }): Promise<CreditResult>;
  /** Moves a pending hold's expiry out to at least now + `seconds` (a continued hardware job keeps its funds while it runs). */
  extendHold(tx: BillingTx, holdId: string, seconds: number): Promise<void>;
  getHold(tx: BillingTx, holdId: string): Promise<HoldRecord | null>;
  findHoldByRef(tx: BillingTx, kind: HoldKind, refId: string): Promise<HoldRecord | null>;
  /** Ids of pending holds past their expiry at `now`, oldest expiry first. */
  dueHoldIds(tx: BillingTx, now: Date, limit: number): Promise<string[]>;
}

/** The spend controls as PATCH leaves them (null = no limit / not set). */
export interface SpendControlsSettings {
  readonly dailyLimitMicros: bigint | null;
  readonly monthlyLimitMicros: bigint | null;
  readonly perJobMaxMicros: bigint | null;
  readonly hardwareAllowed: boolean;
  readonly holdExpirySeconds: number;
  readonly autoRecharge: {
    readonly enabled: boolean;
    readonly thresholdMicros: bigint | null;
    readonly rechargeToMicros: bigint | null;
    readonly monthlyCapMicros: bigint | null;
    readonly paymentMethod: string | null;
  };
}

/** The wallet's settings and auto-recharge state (balances move only through the Ledger). */
export interface Wallets {
  /**
   * Stores the spend controls; `resume` lifts an auto-recharge pause (and its failure streak).
   * The recharge request is recomputed with the ledger's trigger for the new settings.
   */
  saveSpendControls(tx: BillingTx, accountId: string, s: SpendControlsSettings, resume: boolean): Promise<void>;
  clearRechargeRequest(tx: BillingTx, accountId: string): Promise<void>;
  /** Auto-recharge's failure streak and pause: `pause` sets it (now, with the reason), `resume` clears it, `keep` leaves it. */
  setRechargeHealth(tx: BillingTx, accountId: string, h: { consecutiveFailures: number; pause: { reason: string } | 'resume' | 'keep' }): Promise<void>;
  /** Accounts whose wallet asks for a recharge (enabled, not paused), oldest request first. */
  requestedRecharges(tx: BillingTx, limit: number): Promise<string[]>;
  /** Saves the processor customer unless one is already set; returns the one in effect. */
  saveCustomer(tx: BillingTx, accountId: string, customerId: string): Promise<string>;
  accountByCustomer(tx: BillingTx, customerId: string): Promise<string | null>;
  /** Out-of-order tolerant: false when a newer default (by `at`) is already set. */
  setDefaultPaymentMethod(tx: BillingTx, accountId: string, paymentMethod: string, at: Date): Promise<boolean>;
}

/** Hardware quotes and held jobs. */
export interface HardwareStore {
  createQuote(tx: BillingTx, q: Omit<QuoteRecord, 'id' | 'createdAt'>): Promise<QuoteRecord>;
  /** The account's quote; null when there is no such quote for the account. */
  quote(tx: BillingTx, accountId: string, quoteId: string): Promise<QuoteRecord | null>;
  /** The held job placed for the quote, if any. */
  heldJobOfQuote(tx: BillingTx, quoteId: string): Promise<string | null>;
  /** Inserts a `held` job; null when the quote already has one. */
  insertHeldJob(tx: BillingTx, j: Omit<HeldJobRecord, 'status' | 'tasksUsed' | 'createdAt' | 'updatedAt'>): Promise<HeldJobRecord | null>;
  getHeldJob(tx: BillingTx, jobId: string): Promise<HeldJobRecord | null>;
  /**
   * Locks a held job for a change of state, in the lock order of every such path: the account's
   * wallet row first, then the held job row (then, through the ledger, the hold row). Null when
   * the account has no such held job.
   */
  lockHeldJob(tx: BillingTx, accountId: string, jobId: string): Promise<HeldJobRecord | null>;
  /** A `held` job becomes `to`; in any other state it stays. Returns the job as it is now. */
  resolveHeldJob(tx: BillingTx, jobId: string, to: Extract<HeldJobStatus, 'released' | 'expired'>): Promise<HeldJobRecord>;
  /** The held job of an expired hold becomes `expired` (from `held` or `continued`). */
  markHeldJobExpired(tx: BillingTx, holdId: string): Promise<void>;
  /** `held` → `continued`; null when it was not `held`. */
  markHeldJobContinued(tx: BillingTx, jobId: string): Promise<HeldJobRecord | null>;
  /**
   * Counts `count` more tasks of a `held` job as taken (it becomes `continued` with the last one)
   * and points it at `holdId`, the hold of the tasks still untaken (unchanged when null); null
   * when it is not `held` or fewer than `count` tasks remain (the row's CHECK refuses it too).
   */
  takeHeldTasks(tx: BillingTx, jobId: string, count: number, holdId: string | null): Promise<HeldJobRecord | null>;
  /** The account's `held` jobs not past their expiry, oldest first. */
  openHeldJobs(tx: BillingTx, accountId: string): Promise<Array<{ job_id: string; device: string; expires_at: Date }>>;
  /** The held job an Idempotency-Key run placed (its effect), if any. */
  heldJobOfRun(tx: BillingTx, runToken: string): Promise<string | null>;
  recordRunHeldJob(tx: BillingTx, runToken: string, jobId: string): Promise<void>;
}

/** Processor payments and events, and auto-recharge attempts. */
export interface PaymentRecords {
  recordPayment(tx: BillingTx, p: { id: string; accountId: string; kind: PaymentRow['kind']; purpose: PaymentPurpose; amountMicros: bigint; status: string }): Promise<void>;
  findPayment(tx: BillingTx, id: string): Promise<PaymentRow | null>;
  setPaymentStatus(tx: BillingTx, id: string, status: string): Promise<void>;
  /** A late failure never overwrites a success (out-of-order delivery). */
  markPaymentFailed(tx: BillingTx, id: string): Promise<void>;
  /** Claims an event id; false when it was already applied (or is being applied by a concurrent delivery). */
  claimEvent(tx: BillingTx, e: { id: string; type: string; objectId: string | null; created: Date }): Promise<boolean>;
  setEventOutcome(tx: BillingTx, eventId: string, outcome: string): Promise<void>;
  eventOutcome(tx: BillingTx, eventId: string): Promise<string | null>;
  /** Inserts a pending attempt; null when another attempt of the account is still pending. */
  startAttempt(tx: BillingTx, a: { id: string; accountId: string; trigger: AttemptRow['trigger']; amountMicros: bigint; availableBeforeMicros: bigint }): Promise<AttemptRow | null>;
  recordSkippedAttempt(
    tx: BillingTx,
    a: { id: string; accountId: string; trigger: AttemptRow['trigger']; amountMicros: bigint; availableBeforeMicros: bigint; code: string; message: string },
  ): Promise<AttemptRow>;
  /** Settles a pending attempt (or turns a failure into a late success); null when it was already final. */
  finishAttempt(tx: BillingTx, id: string, o: AttemptOutcome): Promise<AttemptRow | null>;
  setAttemptPaymentIntent(tx: BillingTx, id: string, paymentIntentId: string): Promise<void>;
  getAttempt(tx: BillingTx, id: string): Promise<AttemptRow | null>;
  listAttempts(tx: BillingTx, accountId: string, limit: number): Promise<AttemptRow[]>;
  /** Pending attempts created before `before`, oldest first. */
  staleAttempts(tx: BillingTx, before: Date, limit: number): Promise<AttemptRow[]>;
  /** What succeeded or pending attempts since `since` charged. */
  rechargedSince(tx: BillingTx, accountId: string, since: Date): Promise<bigint>;
}

export interface LedgerListQuery {
  readonly limit: number;
  readonly kind?: LedgerTransferKind;
  readonly from?: Date;
  readonly to?: Date;
  readonly before?: { readonly position: string; readonly id: string };
}

/** Read-only figures for the dashboard, the holds list and reconciliation. */
export interface BillingReports {
  spendPerDay(tx: BillingTx, accountId: string, from: Date): Promise<DayAmount[]>;
  spendBy(tx: BillingTx, accountId: string, from: Date, by: 'product' | 'provider'): Promise<GroupAmount[]>;
  largestJobs(tx: BillingTx, accountId: string, from: Date, limit: number): Promise<LargestJob[]>;
  balanceMoves(tx: BillingTx, accountId: string, from: Date): Promise<BalanceMoves>;
  /** The account's holds, newest first, with a keyset cursor (`seq` of the last row seen). */
  listHolds(tx: BillingTx, accountId: string, o: { limit: number; status?: HoldStatus; kind?: HoldKind; beforeSeq?: bigint }): Promise<HoldListRow[]>;
  openHolds(tx: BillingTx, accountId: string): Promise<{ count: number; amountMicros: bigint }>;
  /** The account's ledger transfers, newest first, after the keyset position `before` when given. */
  listTransfers(tx: BillingTx, accountId: string, o: LedgerListQuery): Promise<LedgerTransferRow[]>;
  /** Reconciliation: one line per violated ledger invariant (DESIGN §3); empty = consistent. */
  ledgerProblems(tx: BillingTx): Promise<string[]>;
  ledgerCounts(tx: BillingTx): Promise<{ transfers: number; holds: number; wallets: number }>;
}

/** The accounts' users, as billing needs them (the processor customer's email, operator lookups). */
export interface AccountDirectory {
  /** The email of the account's first user; null when it has none. */
  emailOf(tx: BillingTx, accountId: string): Promise<string | null>;
  /** The user with this email (case-insensitive). */
  byEmail(tx: BillingTx, email: string): Promise<{ accountId: string; email: string } | null>;
}

/** Where the embedded sandbox processor keeps its objects. */
export interface SandboxStore {
  get<T>(id: string): Promise<T | null>;
  put(id: string, type: string, data: unknown): Promise<void>;
  /** Stores the object unless `id` exists; true when stored. Atomic: of concurrent callers one wins. */
  insert(id: string, type: string, data: unknown): Promise<boolean>;
  list<T>(type: string, where?: { delivered?: boolean }): Promise<T[]>;
}

/** Who changed a setting, for the organization's audit log: a person, a machine credential or the system, with the request. */
export interface SettingsActor {
  readonly kind: 'person' | 'credential' | 'system';
  readonly id: string | null;
  readonly requestId: string | null;
}

/**
 * The organization's audit log as billing writes to it: a settings change records its event with
 * the change's own transaction, so the log holds the event exactly when the change committed.
 */
export interface SettingsAudit {
  record(tx: BillingTx, e: { accountId: string; actor: SettingsActor; action: 'billing.spend_controls_changed' | 'billing.auto_recharge_changed'; details: Record<string, unknown> }): Promise<void>;
}

/** Everything billing is wired with (src/store/billing/index.ts builds the SQL implementation). */
export interface BillingPorts {
  readonly uow: UnitOfWork;
  readonly ledger: Ledger;
  readonly wallets: Wallets;
  readonly hardware: HardwareStore;
  readonly payments: PaymentRecords;
  readonly reports: BillingReports;
  readonly accounts: AccountDirectory;
  readonly sandbox: SandboxStore;
  readonly settingsAudit: SettingsAudit;
}
