import { Type } from 'typebox';
import { toWire, requireCircuit } from '../../../circuits/wire-format.js';
import { parameterizedAnswer } from './parameterized-answer.js';
import { hardTimeoutFor } from '../../../compute/compute-pool.js';
import { PROFILE_BUDGET_MS } from '../../../optimization/optimize.js';
import { anonymousLimits, runForRequest } from '../../anonymous-compute.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { keepsGates, OutputFormat, OutputOptions } from '../circuits/output-format.js';
import { circuitField, OptimizeData } from '../circuits/schemas.js';

/** Max steps inlined in the response; larger certificates are summarised by digest and count. */
const INLINE_STEPS = 2_000;

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
          },
          { additionalProperties: false },
        ),
        response: { 200: okResponse(OptimizeData, 'The optimized circuit with its proof of equivalence'), ...errors(422) },
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
      const capNotes: string[] = [];
      // On a compute thread (COMPUTE_THREADS): the search and its proof take up to the profile's
      // budget, during which the event loop keeps serving. AppErrors (422 OPTIMIZATION_UNVERIFIED,
      // 400 device problems) come back as themselves. Canceled when the client goes away.
      const r = await runForRequest(app, req, reply, ({ signal, budgetCapMs }) => {
        const full = PROFILE_BUDGET_MS[profile];
        // Clamped rather than refused: a shorter search still answers with a proven (if less optimized) circuit.
        const budget = budgetCapMs === undefined ? full : Math.min(full, budgetCapMs);
        if (budget < full) {
          capNotes.push(
            `without a session the time budget is at most ${budgetCapMs} ms (ANON_COMPUTE_BUDGET_MS; the ${profile} profile has ${full} ms): send a bearer session or submit a circuit.optimize Account Job (POST /v1/jobs) for the full budget`,
          );
        }
        return app.compute.run(
          'optimize',
          {
            circuit: toWire(circuit),
            limits,
            profile,
            backendHint,
            includeSteps: req.body.include_steps !== false,
            ...(req.body.device === undefined ? {} : { device: req.body.device }),
            ...(req.body.output_format === undefined ? {} : { outputFormat: req.body.output_format }),
            ...(inlineGates ? {} : { inlineGates }),
            ...(budget < full ? { timeBudgetMs: budget } : {}),
          },
          { hardTimeoutMs: hardTimeoutFor(budget), signal },
        );
      });
      const cert = r.certificate;
      const inline = req.body.include_steps !== false && cert.steps !== undefined && cert.steps.length <= INLINE_STEPS;
      return {
        circuit: r.circuit,
        ...(r.qasm === undefined ? {} : { qasm: r.qasm }),
        profile,
        backend_hint: backendHint,
        device: req.body.device ?? null,
        metrics_before: r.metricsBefore,
        metrics_after: r.metricsAfter,
        passes: [...r.passes],
        proof: {
          verified: true as const,
          methods: r.methods.map((m) => ({ ...m })),
          certificate: {
            digest: cert.digest,
            step_count: cert.stepCount,
            global_steps: cert.globalSteps,
            ...(inline ? { steps: cert.steps.map((s) => ({ ...s })) } : {}),
          },
        },
        timed_out: r.timedOut,
        notes: [...capNotes, ...r.notes, ...(inline || req.body.include_steps === false ? [] : [`certificate has ${cert.stepCount} steps; only its digest is returned`])],
        warnings: [...warnings, ...(r.exportWarnings ?? [])],
        elapsed_ms: Math.round(r.elapsedMs),
      };
    },
  );
}
