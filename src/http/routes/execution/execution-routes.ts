import { jobPageQuery } from '../page-query.js';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { ExecutionListRequest, RunRequest } from '../../../execution/execution-service.js';
import { EXECUTION_STATUSES } from '../../../execution/execution-job.js';
import { LIST_MAX } from '../../../kernel/list-cursor.js';
import type { App } from '../../app-types.js';
import { principalOf } from '../../plugins/auth.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Nullable, Obj } from '../../schema-helpers.js';
import { circuitField } from '../circuits/schemas.js';
import { MethodBodyFields, MitigationBodyField, WorkloadBodyFields } from './workload-schemas.js';
import { MAX_PARAMETERS, PARAMETER_NAME_PATTERN } from '../../../circuits/param-expr.js';
import { currentTraceparent } from '../../../telemetry/trace.js';
import { submitterOf } from '../orgs/actor.js';

const tags = ['execution'];

const ClientToken = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$',
  description: 'Chosen by the client, unique per request: the same token never runs or charges twice (a retry returns the original job)',
});
const Circuit = circuitField();

const RunBody = Type.Object(
  {
    circuit: Circuit,
    shots: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1024 })),
    device: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "Default: the provider's simulator" })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 52, description: 'Same seed, same circuit → same counts' })),
    client_token: ClientToken,
    async: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Simulator devices: queue the run for the worker and answer 202 with the queued job at once; poll GET …/{job_id}, cancel with POST …/{job_id}/cancel',
      }),
    ),
    ...WorkloadBodyFields,
    ...MethodBodyFields,
  },
  { additionalProperties: false },
);

/** Result types on hardware (docs/execution.md#results-on-hardware): counts, memory, expectation estimated from shots. */
const HardwareResultFields = {
  result_types: Type.Optional({
    ...WorkloadBodyFields.result_types,
    description:
      'What to return (default ["counts"]): counts; memory (per-shot bitstrings: emulated and IBM devices, not IonQ; at most 10000 shots); expectation of `observables` (emulated and IBM devices), estimated from shots: one task per qubit-wise commuting group of its terms (plus one for the circuit itself when counts or memory are asked). probabilities and statevector are simulator-only (422).',
  }),
  observables: WorkloadBodyFields.observables,
  mitigation: MitigationBodyField,
};

const ContinueBody = Type.Object(
  {
    circuit: Circuit,
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 52 })),
    client_token: ClientToken,
    ...HardwareResultFields,
  },
  { additionalProperties: false },
);

/** At most this many circuits in one batch submission (issue 22: batches of up to 100). */
export const BATCH_MAX_ITEMS = 100;

const ContinueBatchBody = Type.Object(
  {
    circuits: Type.Optional(
      Type.Array(Circuit, { minItems: 1, maxItems: BATCH_MAX_ITEMS, description: 'One circuit per task of the held job (at most the tasks it has left); or give `circuit` with `parameter_values`' }),
    ),
    circuit: Type.Optional({ ...Circuit, description: 'A parameterized circuit run once per point of `parameter_values` (a hardware sweep), instead of `circuits`' }),
    parameter_values: Type.Optional(
      Type.Array(Type.Record(Type.String({ pattern: PARAMETER_NAME_PATTERN }), Type.Number(), { maxProperties: MAX_PARAMETERS }), {
        minItems: 1,
        maxItems: BATCH_MAX_ITEMS,
        description: "A hardware sweep: one binding of `circuit`'s declared parameters per point, each point one task of the held job (job i of the answer is point i)",
      }),
    ),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 52, description: 'Circuit i runs with seed + i' })),
    client_token: ClientToken,
    ...HardwareResultFields,
  },
  { additionalProperties: false },
);

const RunBatchBody = Type.Object(
  {
    circuits: Type.Array(Circuit, { minItems: 1, maxItems: BATCH_MAX_ITEMS, description: 'Each run as its own job on the device' }),
    shots: RunBody.properties.shots,
    device: RunBody.properties.device,
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 52, description: 'Circuit i runs with seed + i' })),
    client_token: ClientToken,
    ...MethodBodyFields,
  },
  { additionalProperties: false },
);

const JobView = Type.Ref('ExecutionJob');
const ItemError = Obj({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Union([Type.Array(Type.Ref('ErrorProblem')), Type.Ref('ErrorFacts')])),
});
const RunBatchView = Obj(
  {
    provider: Type.Union([Type.Literal('provider-one'), Type.Literal('provider-two')]),
    device: Type.String(),
    items: Type.Array(
      Obj({
        index: Type.Integer({ minimum: 0 }),
        status: Type.Union([Type.Literal('completed'), Type.Literal('failed')]),
        job: Nullable(JobView, 'The item’s execution job (null when the circuit was refused before it ran)'),
        error: Nullable(ItemError, 'Why the item failed: the answer a single run would have given, or its job’s failure'),
      }),
      { description: 'One per circuit, in the order given' },
    ),
    completed: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    replayed: Type.Boolean({ description: 'true when this client_token already ran this batch (its jobs are returned as they are now)' }),
  },
  { description: 'A batch of simulator runs: each item’s job and results, or its error' },
);
const HeldBatchView = Obj(
  {
    held_job: Type.Ref('ExecutionHeldTasks'),
    jobs: Type.Array(JobView, { description: 'One queued job per circuit, in the order given; each captures one task price when it completes, or releases it when it fails' }),
    replayed: Type.Boolean({ description: 'true when this answer is the batch a client_token already continued' }),
  },
  { description: 'The jobs a batch continuation queued, and the held job’s tasks after it' },
);
const JobParams = Type.Object({ job_id: Type.String({ format: 'uuid' }) });

/** The filters of GET /v1/execute/jobs; every one given must match. */
const ListQuery = Type.Object(
  {
    provider: Type.Optional(Type.Union([Type.Literal('provider-one'), Type.Literal('provider-two')], { description: 'Only jobs of this provider' })),
    device: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only jobs on this device' })),
    status: Type.Optional(
      Type.Union(
        EXECUTION_STATUSES.map((x) => Type.Literal(x)),
        { description: 'Only jobs in this state' },
      ),
    ),
    ...jobPageQuery(),
  },
  { additionalProperties: false },
);

const JobPage = Obj({
  jobs: Type.Array(JobView, { maxItems: LIST_MAX }),
  next_cursor: Nullable(Type.String(), 'Pass as cursor for the next page; null on the last'),
  has_more: Type.Boolean({ description: 'Whether a next page exists (next_cursor is set exactly then)' }),
});

/** Execution endpoints of spec §4.2 (platform envelope); who may call each: src/http/route-access.ts. */
export default async function executionRoutes(app: App): Promise<void> {
  const svc = () => app.services.execution;
  const auth = { onRequest: app.requireSession };

  app.get(
    '/v1/execute/capabilities',
    {
      onRequest: app.optionalSession,
      schema: {
        tags,
        operationId: 'getExecutionCapabilities',
        summary: 'Readiness report for the caller: every execution option with ready and the reasons when not (check before offering a choice)',
        response: { 200: okResponse(Type.Ref('ExecutionCapabilities'), 'Every option with ready and, when not, the reasons') },
      },
    },
    async (req) => svc().capabilities(req.principal?.accountId),
  );

  for (const provider of ['provider-one', 'provider-two'] as const) {
    const name = provider === 'provider-one' ? 'Provider One' : 'Provider Two';
    app.get(
      `/v1/execute/${provider}/devices`,
      {
        onRequest: app.optionalSession,
        schema: {
          tags,
          operationId: provider === 'provider-one' ? 'listProviderOneDevices' : 'listProviderTwoDevices',
          summary: `${name} devices: qubits, native gates, coupling map, calibration (with its source), pricing, status, queue depth, availability`,
          response: { 200: okResponse(Obj({ provider: Type.Literal(provider), devices: Type.Array(Type.Ref('ExecutionDevice')) }), `The devices of ${name}`) },
        },
      },
      async () => svc().devices(provider),
    );
  }

  app.get(
    '/v1/execute/jobs',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listExecutionJobs',
        summary: 'The account’s execution jobs, newest first, at most 100 per page, filtered by provider, device, status or creation time',
        querystring: ListQuery,
        response: { 200: okResponse(JobPage, 'A page of execution jobs (held jobs not yet continued are read by id)') },
      },
    },
    async (req) => {
      const q = req.query as {
        provider?: ExecutionListRequest['provider'];
        device?: string;
        status?: ExecutionListRequest['status'];
        created_after?: string;
        created_before?: string;
        limit?: number;
        cursor?: string;
      };
      return svc().list(principalOf(req.principal).accountId, {
        provider: q.provider,
        device: q.device,
        status: q.status,
        createdAfter: q.created_after,
        createdBefore: q.created_before,
        limit: q.limit,
        cursor: q.cursor,
      });
    },
  );

  for (const provider of ['provider-one', 'provider-two'] as const) {
    app.post(
      `/v1/execute/${provider}/batch`,
      {
        ...auth,
        config: { idempotent: 'account', idempotencyField: 'client_token' },
        schema: {
          tags,
          operationId: provider === 'provider-one' ? 'runProviderOneBatch' : 'runProviderTwoBatch',
          summary:
            'Run up to 100 circuits on a simulator device in one request: each its own job, each result or error reported per item (simulator runs are free; a hardware batch continues a hold for N tasks: …/held/{job_id}/batch)',
          body: RunBatchBody,
          // 409 hardware device (hold required), device unavailable, token reuse or in progress; 404 unknown device. An item's own error is in its item.
          response: { 200: okResponse(RunBatchView, 'Every item run, with its job or its error'), ...errors(404, 409) },
        },
      },
      async (req) => svc().runBatch(provider, principalOf(req.principal).accountId, req.body, submitterOf(req)),
    );

    app.post(
      `/v1/execute/${provider}`,
      {
        ...auth,
        config: { idempotent: 'account', idempotencyField: 'client_token' },
        schema: {
          tags,
          operationId: provider === 'provider-one' ? 'runOnProviderOne' : 'runOnProviderTwo',
          summary:
            provider === 'provider-one'
              ? 'Run a circuit on Provider One (simulator); answers with the results'
              : 'Run a circuit on Provider Two: the local simulator answers with the results; hardware answers 409 EXECUTION_HOLD_REQUIRED with the quote → hold → continue steps',
          body: RunBody,
          // 404 unknown device; 409 hold required, device unavailable, client token reused or in progress; 422 limits.
          response: {
            200: okResponse(JobView, 'The job: a simulator run is completed (or failed) in this answer; or the job a client_token already created (replayed: true)'),
            202: okResponse(JobView, 'async: true — the simulator run is queued for the worker; poll the job'),
            ...errors(404, 409, 422, 429),
          },
        },
      },
      async (req, reply) => {
        const body = req.body as RunRequest;
        const view = await svc().run(provider, principalOf(req.principal).accountId, body, { submittedBy: submitterOf(req) });
        if (body.async === true && view.replayed !== true) {
          reply.code(202).header('location', `/v1/execute/${provider}/${view.job_id}`);
          const traceparent = currentTraceparent();
          if (traceparent !== undefined) await svc().continueTrace([view.job_id], traceparent);
        }
        return view;
      },
    );

    app.get(
      `/v1/execute/${provider}/:job_id`,
      {
        ...auth,
        schema: {
          tags,
          operationId: provider === 'provider-one' ? 'getProviderOneJob' : 'getProviderTwoJob',
          summary: 'Read an execution job (or a held job not yet continued)',
          params: JobParams,
          response: { 200: okResponse(JobView, 'The job as it is now'), ...errors(404) },
        },
      },
      async (req: FastifyRequest) => svc().job(principalOf(req.principal).accountId, (req.params as { job_id: string }).job_id, provider),
    );

    app.post(
      `/v1/execute/${provider}/:job_id/cancel`,
      {
        ...auth,
        schema: {
          tags,
          operationId: provider === 'provider-one' ? 'cancelProviderOneJob' : 'cancelProviderTwoJob',
          summary:
            'Cancel an execution job: queued → failed / CANCELED now, hold released; running → asked to stop (compute aborted, a remote run canceled at the provider), then failed / CANCELED with what it consumed captured',
          params: JobParams,
          // 404 no such job of the account; 409 it already ended another way, or a held job not continued (release it instead).
          response: { 200: okResponse(JobView, 'The job as it is now: failed / CANCELED, or running with cancel_requested_at set'), ...errors(404, 409) },
        },
      },
      async (req: FastifyRequest) => svc().cancel(principalOf(req.principal).accountId, (req.params as { job_id: string }).job_id.toLowerCase(), provider),
    );
  }

  for (const provider of ['provider-one', 'provider-two'] as const) {
    app.post(
      `/v1/execute/${provider}/held/:job_id`,
      {
        ...auth,
        config: { idempotent: 'account', idempotencyField: 'client_token' },
        schema: {
          tags,
          // provider-two keeps its original operation id (the typed client's `continueHeldJob`).
          operationId: provider === 'provider-one' ? 'continueProviderOneHeldJob' : 'continueHeldJob',
          summary: 'Continue a held hardware job with its circuit: translated to the device and queued (202); the hold is captured on completion, released on failure',
          params: JobParams,
          body: ContinueBody,
          response: {
            202: okResponse(JobView, 'Translated, proven equivalent and queued'),
            200: okResponse(JobView, 'The job this client_token already continued (replayed: true)'),
            // 404 no such held job (or another account's); 409 not continuable, spend controls, token reuse; 422 translation; 500 translation unverified.
            ...errors(404, 409, 422),
          },
        },
      },
      async (req, reply) => {
        const view = await svc().continueHeld(principalOf(req.principal).accountId, req.params.job_id, req.body, provider);
        reply.code(view.replayed === true ? 200 : 202);
        if (view.replayed !== true) reply.header('location', `/v1/execute/${provider}/${view.job_id}`);
        const traceparent = view.replayed === true ? undefined : currentTraceparent();
        if (traceparent !== undefined) await svc().continueTrace([view.job_id], traceparent);
        return view;
      },
    );
  }

  app.post(
    '/v1/execute/provider-two/held/:job_id/batch',
    {
      ...auth,
      config: { idempotent: 'account', idempotencyField: 'client_token' },
      schema: {
        tags,
        operationId: 'continueHeldJobBatch',
        summary:
          'Continue a held hardware job with up to 100 circuits, one task each: every circuit translated and queued as its own job in one transaction (202); each job captures one task price on completion, releases it on failure; the tasks not taken stay held',
        params: JobParams,
        body: ContinueBatchBody,
        response: {
          202: okResponse(HeldBatchView, 'Every circuit translated, proven equivalent and queued'),
          200: okResponse(HeldBatchView, 'The batch this client_token already continued (replayed: true)'),
          // 404 no such held job; 409 not continuable, more circuits than tasks left, spend controls, token reuse; 422 translation of any circuit.
          ...errors(404, 409, 422),
        },
      },
    },
    async (req, reply) => {
      const view = await svc().continueHeldBatch(principalOf(req.principal).accountId, req.params.job_id, req.body);
      reply.code(view.replayed ? 200 : 202);
      // Many jobs, one header: the held job, whose tasks show what was taken (each job is in the answer).
      if (!view.replayed) reply.header('location', `/v1/execute/provider-two/${req.params.job_id.toLowerCase()}`);
      const traceparent = view.replayed ? undefined : currentTraceparent();
      if (traceparent !== undefined)
        await svc().continueTrace(
          view.jobs.map((j) => j.job_id),
          traceparent,
        );
      return view;
    },
  );
}
