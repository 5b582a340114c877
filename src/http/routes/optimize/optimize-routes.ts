import { Type } from 'typebox';
import { toWire, requireCircuit } from '../../../circuits/wire-format.js';
import { parameterizedAnswer } from './parameterized-answer.js';
import { hardTimeoutFor } from '../../../compute/compute-pool.js';
import type { OptimizeTaskInput } from '../../../compute/compute-tasks.js';
import { fail } from '../../../errors/app-error.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import { profileBudgetMs } from '../../../optimization/optimize.js';
import { resolveTarget } from '../../../optimization/target.js';
import { optimizeData } from '../../../optimize-jobs/optimize-answer.js';
import { currentTraceparent } from '../../../telemetry/trace.js';
import { anonymousLimits, runForRequest } from '../../anonymous-compute.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { keepsGates, OutputFormat, OutputOptions } from '../circuits/output-format.js';
import { circuitField, OptimizeData } from '../circuits/schemas.js';
import { optimizeJobRoutes } from './optimize-job-routes.js';
import { optimizeJobView, OptimizeJobView } from './optimize-job-schemas.js';

/**
 * POST /v1/circuits/optimize: proof-gated optimization (spec §1 rule 4). Open endpoint like the
 * other circuit tools; a bearer session, when sent, lifts the anonymous limits (src/http/anonymous-compute.ts).
 */
export default async function optimizeRoutes(app: App): Promise<void> {
  const limits = app.config.circuitLimits;
  anonymousLimits(app); // parsed now: a bad ANON_COMPUTE_* value stops the start, not a request
  app.post(
    '/v1/circuits/optimize',
    {
      onRequest: app.optionalSession,
      // Idempotency-Key (signed-in callers): a retry of an async request answers the same job.
      config: { idempotent: 'account' },
      schema: {
        tags: ['circuits'],
        operationId: 'optimizeCircuit',
        summary: 'Optimize a circuit; the result is returned only with a proof that it is equivalent (else 422 OPTIMIZATION_UNVERIFIED)',
        body: Type.Object(
          {
            circuit: circuitField(),
            profile: Type.Optional(Type.Union([Type.Literal('safe'), Type.Literal('balanced'), Type.Literal('aggressive')], { default: 'safe' })),
            backend_hint: Type.Optional(Type.Union([Type.Literal('generic'), Type.Literal('provider-one'), Type.Literal('provider-two')], { default: 'generic' })),
            device: Type.Optional(Type.String({ maxLength: 128, description: 'A device id of the catalogue: its native gates and coupling map are respected' })),
            output_format: Type.Optional(OutputFormat),
            output: Type.Optional(OutputOptions),
            include_steps: Type.Optional(Type.Boolean({ description: 'Inline the certificate steps (default true, up to 2000 steps)' })),
            async: Type.Optional(
              Type.Boolean({
                description:
                  'true: validate now, queue an optimize job and answer 202 with it (needs a bearer session); poll GET /v1/circuits/optimize/jobs/{job_id}, cancel with POST …/{job_id}/cancel. A circuit with symbolic parameters is answered at once (200) either way.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: okResponse(OptimizeData, 'The optimized circuit with its proof of equivalence'),
          202: okResponse(OptimizeJobView, 'async: true — validated and queued as an optimize job; poll it (the Location header names it)'),
          ...errors(401, 422, 429),
        },
      },
    },
    async (req, reply) => {
      const inlineGates = !keepsGates(req.body.output);
      const { circuit, warnings } = requireCircuit(req.body.circuit, limits, '/circuit', { allowParameters: true, keepGateDefinitions: !inlineGates });
      const profile = req.body.profile ?? 'safe';
      const backendHint = req.body.backend_hint ?? 'generic';
      if (circuit.parameters !== undefined) {
        return parameterizedAnswer(circuit, { profile, backendHint, device: req.body.device, outputFormat: req.body.output_format, inlineGates, warnings });
      }
      if (req.body.async === true) {
        const principal = req.principal;
        if (principal === undefined) throw fail(HTTP_ERRORS.UNAUTHENTICATED, 'async: true needs a bearer session: the job belongs to an account.', { reason: 'missing' });
        // Checked now as the synchronous run would (an unknown device, a circuit too wide for it): 400/422 here, never a failed job.
        resolveTarget(backendHint, req.body.device, circuit.numQubits);
        const job = await app.services.optimizeJobs.submit(
          principal.accountId,
          { task: taskInput(req.body, toWire(circuit), profile, backendHint, inlineGates), device: req.body.device ?? null, warnings },
          currentTraceparent(),
        );
        reply.code(202).header('location', `/v1/circuits/optimize/jobs/${job.id}`);
        return optimizeJobView(job);
      }
      const capNotes: string[] = [];
      // On a compute thread (COMPUTE_THREADS): the search and its proof take up to the profile's
      // budget, during which the event loop keeps serving. AppErrors (422 OPTIMIZATION_UNVERIFIED,
      // 400 device problems) come back as themselves. Canceled when the client goes away.
      const r = await runForRequest(app, req, reply, ({ signal, budgetCapMs }) => {
        const full = profileBudgetMs(profile, circuit.ops.length);
        // Clamped rather than refused: a shorter search still answers with a proven (if less optimized) circuit.
        const budget = budgetCapMs === undefined ? full : Math.min(full, budgetCapMs);
        if (budget < full) {
          capNotes.push(
            `without a session the time budget is at most ${budgetCapMs} ms (ANON_COMPUTE_BUDGET_MS; the ${profile} profile has ${full} ms): send a bearer session or submit a circuit.optimize Account Job (POST /v1/jobs) for the full budget`,
          );
        }
        return app.compute.run(
          'optimize',
          { ...taskInput(req.body, toWire(circuit), profile, backendHint, inlineGates), limits, ...(budget < full ? { timeBudgetMs: budget } : {}) },
          { hardTimeoutMs: hardTimeoutFor(budget), signal },
        );
      });
      return optimizeData(r, { profile, backendHint, device: req.body.device ?? null, includeSteps: req.body.include_steps !== false, warnings, notes: capNotes });
    },
  );
  optimizeJobRoutes(app);

  /** The compute task's input from the request (the circuit validated, in wire format). */
  function taskInput(
    body: { include_steps?: boolean | undefined; device?: string | undefined; output_format?: OptimizeTaskInput['outputFormat'] | undefined },
    circuit: OptimizeTaskInput['circuit'],
    profile: OptimizeTaskInput['profile'],
    backendHint: OptimizeTaskInput['backendHint'],
    inlineGates: boolean,
  ): OptimizeTaskInput {
    return {
      circuit,
      limits,
      profile,
      backendHint,
      includeSteps: body.include_steps !== false,
      ...(body.device === undefined ? {} : { device: body.device }),
      ...(body.output_format === undefined ? {} : { outputFormat: body.output_format }),
      ...(inlineGates ? {} : { inlineGates }),
    };
  }
}
