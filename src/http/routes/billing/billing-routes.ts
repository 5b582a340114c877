import { actorOf, submitterOf } from '../orgs/actor.js';
import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { personOf, principalOf } from '../../plugins/auth.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { verifiedEmail } from '../../plugins/verified-email.js';
import { tasksPerRun } from '../../../execution/hardware-workload.js';
import { fail } from '../../../errors/app-error.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import { MitigationBodyField, WorkloadBodyFields } from '../execution/workload-schemas.js';
import { DashboardView, HeldJobView, HoldListView, LEDGER_KINDS, LedgerEntryView, ProfileView, QuoteView, RecoveryView, ReleasedJobView, SpendControlsPatch, SummaryView } from './schemas.js';

/**
 * Account, wallet, spend controls, auto-recharge and hardware quote/hold (spec §4.2). Every route acts on the
 * caller's account; who may call which (a session, or a machine token with billing:read or execute:hardware) is
 * declared in src/http/route-access.ts.
 */
export default async function billingRoutes(app: App): Promise<void> {
  const billing = app.services.billing;
  // onRequest, so that a missing session is a 401 before the body is validated.
  const auth = { onRequest: app.requireSession };
  const tags = ['billing'];

  app.get(
    '/v1/billing/profile',
    { ...auth, schema: { tags, operationId: 'getBillingProfile', summary: 'Billing profile of the session’s account', response: { 200: okResponse(ProfileView, 'The billing profile') } } },
    async (req) => billing.profile(personOf(req.principal)),
  );

  app.get(
    '/v1/billing/summary',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'getBillingSummary',
        summary: 'Wallet, spend so far, limits, open holds and auto-recharge state',
        response: { 200: okResponse(SummaryView, 'The account’s money at a glance') },
      },
    },
    async (req) => billing.summary(principalOf(req.principal).accountId),
  );

  app.get(
    '/v1/billing/wallet',
    { ...auth, schema: { tags, operationId: 'getWallet', summary: 'Available, held and total balance', response: { 200: okResponse(Type.Ref('Wallet'), 'The wallet now') } } },
    async (req) => billing.wallet(principalOf(req.principal).accountId),
  );

  app.get(
    '/v1/billing/jobs',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listBillingJobs',
        summary: 'Money view of the account’s jobs (holds), newest first',
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
            status: Type.Optional(Type.Union(['pending', 'captured', 'released', 'expired'].map((s) => Type.Literal(s)))),
            kind: Type.Optional(Type.Union([Type.Literal('job'), Type.Literal('hardware')])),
            cursor: Type.Optional(Type.String({ maxLength: 20 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: okResponse(
            Obj({ jobs: Type.Array(HoldListView, { maxItems: 100 }), next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last' }) }),
            'A page of holds',
          ),
        },
      },
    },
    async (req) => {
      const q = req.query as { limit: number; status?: 'pending' | 'captured' | 'released' | 'expired'; kind?: 'job' | 'hardware'; cursor?: string };
      return billing.jobs(principalOf(req.principal).accountId, q);
    },
  );

  app.get(
    '/v1/billing/ledger',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listLedgerEntries',
        summary: 'The account’s ledger: every transfer and its effect on available and held, newest first',
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
            kind: Type.Optional(Type.Union(LEDGER_KINDS.map((k) => Type.Literal(k)))),
            from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Transfers at or after this instant' })),
            to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Transfers before this instant' })),
            cursor: Type.Optional(Type.String({ maxLength: 120, description: 'next_cursor of the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: okResponse(
            Obj({
              entries: Type.Array(LedgerEntryView, { maxItems: 100 }),
              next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last' }),
            }),
            'A page of ledger transfers',
          ),
        },
      },
    },
    async (req) => {
      const q = req.query as { limit: number; kind?: (typeof LEDGER_KINDS)[number]; from?: string; to?: string; cursor?: string };
      return billing.ledgerEntries(principalOf(req.principal).accountId, q);
    },
  );

  app.get(
    '/v1/billing/dashboard',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'getBillingDashboard',
        summary: 'Chart-ready figures: spend per day, per product and provider, largest jobs, balance history',
        querystring: Type.Object({ days: Type.Integer({ minimum: 1, maximum: 366, default: 30 }) }, { additionalProperties: false }),
        response: { 200: okResponse(DashboardView, 'Every day of the range') },
      },
    },
    async (req) => billing.dashboard(principalOf(req.principal).accountId, req.query.days),
  );

  app.get(
    '/v1/billing/spend-controls',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'getSpendControls',
        summary: 'Spend limits, hardware policy, hold expiry and auto-recharge settings',
        response: { 200: okResponse(Type.Ref('SpendControls'), 'The spend controls and what was spent') },
      },
    },
    async (req) => billing.spendControls(principalOf(req.principal).accountId),
  );

  app.patch(
    '/v1/billing/spend-controls',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'updateSpendControls',
        summary: 'Change spend controls (owner only); null clears a limit; unknown fields are rejected',
        body: SpendControlsPatch,
        response: { 200: okResponse(Type.Ref('SpendControls'), 'The spend controls after the change') },
      },
    },
    async (req) => {
      // The audit event is written in the change's own transaction.
      return billing.patchSpendControls(principalOf(req.principal).accountId, req.body, actorOf(req));
    },
  );

  app.get(
    '/v1/billing/auto-recharge/attempts',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listAutoRechargeAttempts',
        summary: 'Every auto-recharge attempt with its outcome, newest first',
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }, { additionalProperties: false }),
        response: { 200: okResponse(Obj({ attempts: Type.Array(Type.Ref('AutoRechargeAttempt')) }), 'The attempts') },
      },
    },
    async (req) => billing.autoRecharge.attempts(principalOf(req.principal).accountId, req.query.limit),
  );

  app.get(
    '/v1/billing/recovery-status',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'getRecoveryStatus',
        summary: 'What happened to auto-recharge and what the owner must do',
        response: { 200: okResponse(RecoveryView, 'The auto-recharge state and the actions that would fix it') },
      },
    },
    async (req) => billing.autoRecharge.recoveryStatus(principalOf(req.principal).accountId),
  );

  app.post(
    '/v1/billing/auto-recharge/test',
    {
      ...auth,
      config: { idempotent: 'account' as const },
      schema: {
        tags,
        operationId: 'testAutoRecharge',
        summary: 'Runs one real auto-recharge attempt against the configured processor',
        response: {
          200: okResponse(
            Obj({ attempt: Type.Union([Type.Ref('AutoRechargeAttempt'), Type.Null()], { description: 'null when an attempt is already in flight' }), wallet: Type.Ref('Wallet') }),
            'The attempt and the wallet after it',
          ),
          ...errors(409, 502),
        },
      },
    },
    async (req) => {
      const accountId = principalOf(req.principal).accountId;
      const attempt = await billing.autoRecharge.run(accountId, 'test');
      return { attempt, wallet: await billing.wallet(accountId) };
    },
  );

  app.post(
    '/v1/billing/hardware/quote',
    {
      ...auth,
      config: { idempotent: 'account' as const },
      schema: {
        tags,
        operationId: 'quoteHardwareRun',
        summary: 'Price a hardware run: per task + per shot, valid until valid_until',
        body: Type.Object(
          {
            provider: Type.String({ minLength: 1, maxLength: 64, default: 'provider-two' }),
            device: Type.String({ minLength: 1, maxLength: 128 }),
            shots: Type.Integer({ minimum: 1, maximum: 100_000 }),
            tasks: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Circuit runs (default 1); with result_types / observables, runs of that kind, each taking its tasks' })),
            result_types: Type.Optional({
              ...WorkloadBodyFields.result_types,
              description:
                'The result types of each run (default ["counts"]): an expectation takes one task per qubit-wise commuting group of `observables`, plus one when counts or memory are asked for',
            }),
            observables: WorkloadBodyFields.observables,
            mitigation: MitigationBodyField,
          },
          { additionalProperties: false },
        ),
        // 400 observables that cannot be grouped (not one letter per qubit, lengths differ).
        response: { 200: okResponse(QuoteView, 'The quote: `tasks` is every task the runs take'), ...errors(400) },
      },
    },
    async (req) => {
      const { result_types, observables, mitigation, ...rest } = req.body;
      // An expectation run is priced per measurement group: the quote counts them as the continuation will.
      const perRun = tasksPerRun(result_types, observables, mitigation);
      const tasks = (rest.tasks ?? 1) * perRun;
      if (tasks > 1000)
        throw fail(HTTP_ERRORS.VALIDATION_FAILED, `At most 1000 tasks per quote; these runs take ${tasks}.`, [
          { path: '/tasks', code: 'TOO_MANY_TASKS', message: `${rest.tasks ?? 1} run(s) × ${perRun} task(s)` },
        ]);
      return billing.hardwareQuote(principalOf(req.principal).accountId, { ...rest, tasks });
    },
  );

  app.post(
    '/v1/billing/hardware/hold',
    {
      // Holding funds needs a confirmed email (issue #26).
      onRequest: [app.requireSession, verifiedEmail(app)],
      config: { idempotent: 'account' as const },
      schema: {
        tags,
        operationId: 'placeHardwareHold',
        summary: 'Reserve a quote’s amount and create a held job (job_id)',
        body: Type.Object(
          {
            quote_id: Type.String({ format: 'uuid' }),
            expires_in_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 7 * 86_400 })),
          },
          { additionalProperties: false },
        ),
        // 404 unknown quote; 409 expired or used quote, balance, spend limits, device unavailable.
        response: { 201: okResponse(HeldJobView, 'The held job, its funds reserved'), ...errors(403, 404, 409) },
      },
    },
    async (req, reply) => {
      reply.code(201);
      return billing.hardwareHold(principalOf(req.principal).accountId, req.body, req.idempotency?.runToken, new Date(), { submittedBy: submitterOf(req), requestId: req.id });
    },
  );

  app.post(
    '/v1/billing/hardware/hold/:job_id/release',
    {
      ...auth,
      config: { idempotent: 'account' as const },
      schema: {
        tags,
        operationId: 'releaseHardwareHold',
        summary: 'Release a held job’s funds (exactly once; a second release returns the first outcome)',
        params: Type.Object({ job_id: Type.String({ format: 'uuid' }) }),
        // 403 another account's held job; 404 no such held job; 409 already continued.
        response: { 200: okResponse(ReleasedJobView, 'The held job, released'), ...errors(403, 404, 409) },
      },
    },
    async (req) => billing.hardwareRelease(principalOf(req.principal).accountId, req.params.job_id),
  );
}
