import { randomUUID } from 'node:crypto';
import type { Config } from '../config/config.js';
import { fail } from '../errors/app-error.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';
import type { BackgroundWorker } from '../worker.js';
import { AutoRecharge } from './auto-recharge.js';
import { loadBillingConfig, type BillingConfig } from './billing-config.js';
import { BILLING_ERRORS } from './error-codes.js';
import { holdQuote, releaseHeldJob } from './hardware-holds.js';
import { quoteTotal, tablePricing, type HardwareDeviceGate, type HardwarePricing } from './hardware-pricing.js';
import { HoldExpirySweeper, expireDueHolds } from './hold-expiry.js';
import { formatMicros } from './money.js';
import { grantCreditByEmail, ledgerCheck } from './operator.js';
import { Payments } from './payments.js';
import type { BillingPorts, BillingTx, SettingsActor } from './ports.js';
import type { PaymentProcessor } from './processor/processor.js';
import { SandboxProcessor } from './processor/sandbox-processor.js';
import { StripeProcessor } from './processor/stripe-processor.js';
import { meteredProcessor } from './processor/metered-processor.js';
import { noopMeter, type Meter } from '../telemetry/meter.js';
import type { HoldKind, HoldStatus, LedgerTransferKind } from './records.js';
import { nextSpendControls, parseSpendControlsPatch, startOfUtcDay, startOfUtcMonth, type SpendControlsPatch } from './spend-controls.js';
import { heldJobView, holdListView, ledgerTransferView, quoteView, spendControlsView, walletView } from './views.js';
import { decodeLedgerCursor, encodeLedgerCursor } from './ledger-cursor.js';

/** Billing wired to its adapters; routes reach it as `app.services.billing`. */
export class BillingService {
  readonly settings: BillingConfig;
  readonly processor: PaymentProcessor;
  /** Present when the processor is the embedded sandbox (hosted pages). */
  readonly sandbox: SandboxProcessor | undefined;
  readonly payments: Payments;
  readonly autoRecharge: AutoRecharge;
  readonly workers: BackgroundWorker[];
  /** Device states from the execution domain (attached by its composition); none → price list only. */
  private deviceGate: HardwareDeviceGate | undefined;

  /**
   * `ports`: the store's implementations (src/store/billing/), given by the composition root.
   * `newId`: ids of held jobs.
   */
  constructor(
    readonly config: Config,
    readonly ports: BillingPorts,
    readonly pricing: HardwarePricing = tablePricing(),
    private readonly newId: () => string = randomUUID,
    meter: Meter = noopMeter,
  ) {
    this.settings = loadBillingConfig(config);
    if (this.settings.processor === 'stripe' && this.settings.stripe !== undefined) {
      this.processor = meteredProcessor(new StripeProcessor(this.settings.stripe), meter);
      this.sandbox = undefined;
    } else {
      this.sandbox = new SandboxProcessor(ports.sandbox, this.settings.publicBaseUrl, this.settings.sandboxWebhookSecret);
      this.processor = meteredProcessor(this.sandbox, meter);
    }
    this.payments = new Payments(ports, this.processor, this.settings);
    this.autoRecharge = new AutoRecharge(ports, this.payments, this.settings);
    this.payments.onPaymentOutcome = (tx, accountId, attemptId, outcome) => this.autoRecharge.applyOutcome(tx, accountId, attemptId, outcome);
    this.workers = [new HoldExpirySweeper(ports, this.settings.sweepIntervalMs), this.autoRecharge.worker()];
  }

  private get auto(): BillingTx {
    return this.ports.uow.autocommit;
  }

  /** Expires the pending holds past their expiry now (the sweeper's pass; tests and the CLI call it directly). */
  expireDueHolds(opts: { now?: Date; limit?: number } = {}): Promise<string[]> {
    return expireDueHolds(this.ports, opts);
  }

  /** Operator: promotional credit to the account of a user (CLI and operator endpoint). */
  grantCreditByEmail(i: { email: string; amount: string; reason?: string; idempotencyKey?: string }) {
    return grantCreditByEmail(this.ports, i);
  }

  /** Operator: reconciliation of the whole ledger. */
  ledgerCheck() {
    return ledgerCheck(this.ports);
  }

  /** The execution composition attaches its device states here (quotes show them, holds check them). */
  useDeviceGate(gate: HardwareDeviceGate): void {
    this.deviceGate = gate;
  }

  /**
   * Call after a transaction that placed a hold has committed (jobs, execution): runs a
   * pending auto-recharge in the background. Never throws; the worker retries anyway.
   */
  afterDebit(accountId: string): void {
    void this.autoRecharge.runIfRequested(accountId).catch(() => undefined);
  }

  /**
   * Billing readiness for the execution capabilities report: whether this account can pay
   * for hardware through quote/hold right now, and why not.
   */
  async readiness(accountId: string) {
    const w = await this.ports.ledger.readWallet(this.auto, accountId);
    const wallet = await this.ports.ledger.wallet(this.auto, accountId);
    const hardwareAllowed = w?.hardware_allowed ?? true;
    const reasons: string[] = [];
    if (!hardwareAllowed) reasons.push('hardware spending is turned off in the spend controls (PATCH /v1/billing/spend-controls {"hardware_allowed":true})');
    if (wallet.availableMicros <= 0n && !(w?.ar_enabled && w.ar_paused_at === null)) reasons.push('the available balance is 0; top up through POST /v1/billing/processor/checkout-session');
    return {
      ready: reasons.length === 0,
      reasons,
      hardware_allowed: hardwareAllowed,
      available: formatMicros(wallet.availableMicros),
      auto_recharge_active: Boolean(w?.ar_enabled && w.ar_paused_at === null),
      processor: this.processor.name,
      devices: this.pricing.list().map((p) => ({ provider: p.provider, device: p.device })),
    };
  }

  async wallet(accountId: string) {
    return walletView(await this.ports.ledger.wallet(this.auto, accountId));
  }

  async profile(p: { accountId: string; userId: string; email: string }) {
    const w = await this.ports.ledger.readWallet(this.auto, p.accountId);
    return {
      account_id: p.accountId,
      user_id: p.userId,
      email: p.email,
      role: 'owner' as const,
      currency: 'USD' as const,
      processor: this.processor.name,
      processor_customer_id: w?.processor_customer_id ?? null,
      default_payment_method: w?.default_payment_method ?? null,
      auto_recharge_payment_method: w?.ar_payment_method ?? null,
      created_at: (w?.created_at === undefined ? new Date() : new Date(w.created_at)).toISOString(),
    };
  }

  async spendControls(accountId: string, now = new Date()) {
    const { ledger } = this.ports;
    const w = await ledger.readWallet(this.auto, accountId);
    const [today, month] = await Promise.all([ledger.spentSince(this.auto, accountId, startOfUtcDay(now)), ledger.spentSince(this.auto, accountId, startOfUtcMonth(now))]);
    return spendControlsView(w, today, month);
  }

  async summary(accountId: string, now = new Date()) {
    const wallet = await this.ports.ledger.wallet(this.auto, accountId);
    const controls = await this.spendControls(accountId, now);
    const open = await this.ports.reports.openHolds(this.auto, accountId);
    const recovery = await this.autoRecharge.recoveryStatus(accountId);
    return {
      wallet: walletView(wallet, now),
      spend: { today: controls.spent_today, this_month: controls.spent_this_month },
      limits: { daily_limit: controls.daily_limit, monthly_limit: controls.monthly_limit, per_job_max: controls.per_job_max, hardware_allowed: controls.hardware_allowed },
      open_holds: { count: open.count, amount: formatMicros(open.amountMicros) },
      auto_recharge: { enabled: controls.auto_recharge.enabled, state: recovery.state },
      processor: this.processor.name,
    };
  }

  /**
   * PATCH: every field optional; null clears a limit; unknown fields are refused by the schema.
   * The organization's audit event is written in the change's transaction: a change that does not
   * commit leaves no event, and a failed event write undoes the change.
   */
  async patchSpendControls(accountId: string, patch: SpendControlsPatch, actor: SettingsActor = { kind: 'system', id: null, requestId: null }) {
    const parsed = parseSpendControlsPatch(patch);
    const action = Object.keys(patch).every((k) => k === 'auto_recharge') ? 'billing.auto_recharge_changed' : 'billing.spend_controls_changed';
    await this.ports.uow.run(async (tx) => {
      const { settings, resume } = nextSpendControls(await this.ports.ledger.lockWallet(tx, accountId), patch, parsed);
      await this.ports.wallets.saveSpendControls(tx, accountId, settings, resume);
      await this.ports.settingsAudit.record(tx, { accountId, actor, action, details: { changes: patch } });
    });
    return this.spendControls(accountId);
  }

  async jobs(accountId: string, o: { limit: number; status?: HoldStatus; kind?: HoldKind; cursor?: string }) {
    let beforeSeq: bigint | undefined;
    if (o.cursor !== undefined) {
      if (!/^\d{1,18}$/.test(o.cursor))
        throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'Bad cursor.', [{ in: 'querystring', path: '/cursor', code: 'INVALID', message: 'is not a cursor from a previous page' }]);
      beforeSeq = BigInt(o.cursor);
    }
    const rows = await this.ports.reports.listHolds(this.auto, accountId, {
      limit: o.limit + 1,
      ...(o.status ? { status: o.status } : {}),
      ...(o.kind ? { kind: o.kind } : {}),
      ...(beforeSeq !== undefined ? { beforeSeq } : {}),
    });
    const page = rows.slice(0, o.limit);
    const last = page[page.length - 1];
    return { jobs: page.map(holdListView), next_cursor: rows.length > o.limit && last !== undefined ? BigInt(last.seq).toString() : null };
  }

  /** GET /v1/billing/ledger: the account's transfers, newest first, with a keyset cursor. */
  async ledgerEntries(accountId: string, o: { limit: number; kind?: LedgerTransferKind; from?: string; to?: string; cursor?: string }) {
    const before = o.cursor === undefined ? undefined : decodeLedgerCursor(o.cursor);
    const rows = await this.ports.reports.listTransfers(this.auto, accountId, {
      limit: o.limit + 1,
      ...(o.kind === undefined ? {} : { kind: o.kind }),
      ...(o.from === undefined ? {} : { from: new Date(o.from) }),
      ...(o.to === undefined ? {} : { to: new Date(o.to) }),
      ...(before === undefined ? {} : { before }),
    });
    const page = rows.slice(0, o.limit);
    const last = page[page.length - 1];
    return { entries: page.map(ledgerTransferView), next_cursor: rows.length > o.limit && last !== undefined ? encodeLedgerCursor(last.position, last.id) : null };
  }

  async dashboard(accountId: string, days: number, now = new Date()) {
    const end = startOfUtcDay(now);
    const from = new Date(end.getTime() - (days - 1) * 86_400_000);
    const { reports, ledger } = this.ports;
    const [perDay, byProduct, byProvider, largest, moves, wallet] = await Promise.all([
      reports.spendPerDay(this.auto, accountId, from),
      reports.spendBy(this.auto, accountId, from, 'product'),
      reports.spendBy(this.auto, accountId, from, 'provider'),
      reports.largestJobs(this.auto, accountId, from, 10),
      reports.balanceMoves(this.auto, accountId, from),
      ledger.wallet(this.auto, accountId),
    ]);
    const dates = Array.from({ length: days }, (_, i) => new Date(from.getTime() + i * 86_400_000).toISOString().slice(0, 10));
    const spendMap = new Map(perDay.map((d) => [d.day, d]));
    const moveMap = new Map(moves.days.map((d) => [d.day, d]));
    let a = moves.openAvailable;
    let h = moves.openHeld;
    const balance_history = dates.map((date) => {
      const mv = moveMap.get(date);
      a += mv?.available ?? 0n;
      h += mv?.held ?? 0n;
      return { date, available: formatMicros(a), held: formatMicros(h), total: formatMicros(a + h) };
    });
    const total = perDay.reduce((s, d) => s + d.amount, 0n);
    return {
      currency: 'USD' as const,
      range: { from: dates[0] as string, to: dates[dates.length - 1] as string, days },
      totals: { spend: formatMicros(total), jobs: perDay.reduce((s, d) => s + d.count, 0) },
      wallet: walletView(wallet, now),
      spend_per_day: dates.map((date) => ({ date, spend: formatMicros(spendMap.get(date)?.amount ?? 0n), jobs: spendMap.get(date)?.count ?? 0 })),
      spend_by_product: byProduct.map((g) => ({ product: g.key ?? 'unspecified', spend: formatMicros(g.amount), jobs: g.count })),
      spend_by_provider: byProvider.map((g) => ({ provider: g.key ?? 'unspecified', spend: formatMicros(g.amount), jobs: g.count })),
      largest_jobs: largest.map((j) => ({
        hold_id: j.hold_id,
        job_id: j.ref_id,
        kind: j.kind,
        description: j.description,
        product: j.product,
        provider: j.provider,
        spend: formatMicros(BigInt(j.captured_micros) - BigInt(j.refunded_micros)),
        created_at: new Date(j.created_at).toISOString(),
      })),
      balance_history,
    };
  }

  async hardwareQuote(accountId: string, i: { provider: string; device: string; shots: number; tasks?: number }, now = new Date()) {
    const price = this.pricing.priceOf(i.provider, i.device);
    if (price === null) {
      throw fail(BILLING_ERRORS.UNKNOWN_DEVICE, `No hardware price for ${i.provider}/${i.device}.`, {
        known: this.pricing.list().map((p) => `${p.provider}/${p.device}`),
      });
    }
    // A quote is only a price: it is given for a device that is down too, and says so.
    const state = await this.deviceGate?.state(i.provider, i.device);
    const tasks = i.tasks ?? 1;
    const figures = quoteTotal(price, i.shots, tasks);
    const quote = await this.ports.uow.run(async (tx) => {
      await this.ports.ledger.ensureWallet(tx, accountId);
      return this.ports.hardware.createQuote(tx, {
        accountId,
        provider: price.provider,
        device: price.device,
        shots: i.shots,
        tasks,
        ...figures,
        validUntil: new Date(now.getTime() + this.settings.quoteTtlSeconds * 1000),
      });
    });
    return {
      ...quoteView(quote),
      ...(state === undefined || state === null ? {} : { device_status: state.status, device_available: state.available, device_reasons: state.reasons }),
    };
  }

  /** `runToken`: the Idempotency-Key run of the request; its retry after a crash gets the hold it placed. */
  async hardwareHold(
    accountId: string,
    i: { quote_id: string; expires_in_seconds?: number },
    runToken?: string,
    now = new Date(),
    who: { submittedBy?: string | null; requestId?: string | null } = {},
  ) {
    // No funds are reserved for a device that cannot run now (offline, maintenance, not
    // configured): the hold is refused with the continuation's 409 before the transaction.
    // Unknown or already used quotes are left to holdQuote, which names them.
    const { ledger, hardware, uow } = this.ports;
    if (this.deviceGate !== undefined) {
      const quote = await hardware.quote(this.auto, accountId, i.quote_id);
      if (quote !== null && (await hardware.heldJobOfQuote(this.auto, quote.id)) === null) await this.deviceGate.assertHoldable(quote.provider, quote.device);
    }
    const job = await uow.run(async (tx) => {
      const w = await ledger.lockWallet(tx, accountId);
      const ttl = i.expires_in_seconds ?? Number(w.hold_expiry_seconds);
      return holdQuote({ ledger, hardware, newId: this.newId }, tx, {
        accountId,
        quoteId: i.quote_id,
        expiresAt: new Date(now.getTime() + ttl * 1000),
        now,
        runToken,
        submittedBy: who.submittedBy ?? null,
        requestId: who.requestId ?? null,
      });
    });
    this.afterDebit(accountId);
    return { ...heldJobView(job), wallet: walletView(await ledger.wallet(this.auto, accountId)) };
  }

  async hardwareRelease(accountId: string, jobId: string) {
    const { ledger, hardware, uow } = this.ports;
    const existing = await hardware.getHeldJob(this.auto, jobId);
    if (existing === null) throw fail(BILLING_ERRORS.HOLD_NOT_FOUND, `No held job ${jobId}.`);
    if (existing.accountId !== accountId) throw fail(HTTP_ERRORS.FORBIDDEN, 'This held job belongs to another account.');
    const { job, release } = await uow.run((tx) => releaseHeldJob({ ledger, hardware }, tx, { accountId, jobId, reason: 'released by owner' }));
    return {
      ...heldJobView(job),
      released: formatMicros(release.releasedMicros),
      already_released: release.alreadyReleased,
      wallet: walletView(await ledger.wallet(this.auto, accountId)),
    };
  }
}
