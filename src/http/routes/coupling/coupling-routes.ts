import { Type } from 'typebox';
import type { Circuit } from '../../../circuits/ir.js';
import { CIRCUITS_ERRORS } from '../../../circuits/error-codes.js';
import { requireCircuit, toWire } from '../../../circuits/wire-format.js';
import { hardTimeoutFor } from '../../../compute/compute-pool.js';
import { analyzeCoupling, type CouplingDeps } from '../../../coupling/analyze-coupling.js';
import { compareCoupling, DEFAULT_COMPARE_TOLERANCE } from '../../../coupling/compare-coupling.js';
import { couplingSettingsFromEnv } from '../../../coupling/settings.js';
import { fail, isAppError } from '../../../errors/app-error.js';
import { finalState } from '../../../simulation/index.js';
import { anonymousLimits, runForRequest } from '../../anonymous-compute.js';
import type { App } from '../../app-types.js';
import { okResponse } from '../../envelope-schemas.js';
import { CompareBody, CompareData, CouplingBody } from './schemas.js';

/**
 * Parses several circuit fields and reports the problems of all of them in one
 * 400 CIRCUIT_INVALID (each path already carries its field, e.g. /after/gates/2/op).
 */
function requireCircuits(app: App, fields: readonly (readonly [string, unknown])[]): { circuits: Circuit[]; warnings: string[] } {
  const circuits: Circuit[] = [];
  const warnings: string[] = [];
  const problems: unknown[] = [];
  for (const [name, input] of fields) {
    try {
      const r = requireCircuit(input, app.config.circuitLimits, `/${name}`);
      circuits.push(r.circuit);
      warnings.push(...(fields.length > 1 ? r.warnings.map((w) => `${name}: ${w}`) : r.warnings));
    } catch (e) {
      if (!isAppError(e) || e.code !== CIRCUITS_ERRORS.CIRCUIT_INVALID.code || !Array.isArray(e.details)) throw e;
      problems.push(...(e.details as unknown[]));
    }
  }
  if (problems.length > 0) {
    throw fail(CIRCUITS_ERRORS.CIRCUIT_INVALID, `The circuit${fields.length > 1 ? 's are' : ' is'} not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}).`, problems);
  }
  return { circuits, warnings };
}

/** Coupling analysis (spec §4.2): open, in its own rate-limit bucket because measured mode is CPU-heavy. */
export default async function couplingRoutes(app: App): Promise<void> {
  const settings = couplingSettingsFromEnv(app.config.env);
  const deps: CouplingDeps = { finalState: (c, opts) => finalState(c, { timeBudgetMs: opts.timeBudgetMs }) };
  const tags = ['coupling'];
  const config = { rateLimit: { bucket: 'coupling', perMinute: settings.ratePerMinute } };
  anonymousLimits(app); // parsed now: a bad ANON_COMPUTE_* value stops the start, not a request
  // Without a session the budget is at most ANON_COMPUTE_BUDGET_MS; the report says when measuring fell back.
  const budgetFor = (cap: number | undefined) => ({ ...settings, timeBudgetMs: cap === undefined ? settings.timeBudgetMs : Math.min(settings.timeBudgetMs, cap) });

  app.post(
    '/v1/analysis/coupling',
    {
      config,
      onRequest: app.optionalSession,
      schema: {
        tags,
        operationId: 'analyzeCoupling',
        summary: 'Coupling of qubit pairs: qualitative (structure) or measured (concurrence, entropies, mutual information), with a reported fallback',
        body: CouplingBody,
        response: { 200: okResponse(Type.Ref('CouplingReport'), 'The coupling report') },
      },
    },
    async (req, reply) => {
      const { circuits, warnings } = requireCircuits(app, [['circuit', req.body.circuit]]);
      const mode = req.body.mode ?? 'auto';
      // Structure only is cheap and stays here; measured/auto simulate, on a compute thread.
      const report =
        mode === 'qualitative'
          ? await analyzeCoupling(circuits[0]!, { mode, pairs: req.body.pairs }, settings, deps)
          : await runForRequest(app, req, reply, ({ signal, budgetCapMs }) => {
              const s = budgetFor(budgetCapMs);
              return app.compute.run(
                'coupling.analyze',
                { circuit: toWire(circuits[0]!), limits: app.config.circuitLimits, mode, pairs: req.body.pairs, settings: s },
                { hardTimeoutMs: hardTimeoutFor(s.timeBudgetMs), signal },
              );
            });
      return { ...report, warnings };
    },
  );

  app.post(
    '/v1/analysis/coupling/compare',
    {
      config,
      onRequest: app.optionalSession,
      schema: {
        tags,
        operationId: 'compareCoupling',
        summary: 'What a transformation (optimization, routing) preserves, gains or loses in coupling, pair by pair',
        body: CompareBody,
        response: { 200: okResponse(CompareData, 'Pair by pair: preserved, changed, gained, lost or uncoupled') },
      },
    },
    async (req, reply) => {
      const { circuits, warnings } = requireCircuits(app, [
        ['before', req.body.before],
        ['after', req.body.after],
      ]);
      const mode = req.body.mode ?? 'auto';
      const request = { mode, pairs: req.body.pairs, qubitMap: req.body.qubit_map, tolerance: req.body.tolerance ?? DEFAULT_COMPARE_TOLERANCE };
      const result =
        mode === 'qualitative'
          ? await compareCoupling(circuits[0]!, circuits[1]!, request, settings, deps)
          : await runForRequest(app, req, reply, ({ signal, budgetCapMs }) => {
              const s = budgetFor(budgetCapMs);
              return app.compute.run(
                'coupling.compare',
                { before: toWire(circuits[0]!), after: toWire(circuits[1]!), limits: app.config.circuitLimits, ...request, settings: s },
                { hardTimeoutMs: 2 * hardTimeoutFor(s.timeBudgetMs), signal },
              );
            });
      return { ...result, warnings };
    },
  );
}
