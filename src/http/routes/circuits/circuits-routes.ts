import { Type } from 'typebox';
import { analyzeCircuit } from '../../../circuits/analysis/analyze.js';
import { circuitDepth } from '../../../circuits/depth.js';
import { fail } from '../../../errors/app-error.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import { duplicateItemDetails } from '../../../errors/duplicate-items.js';
import { CIRCUITS_ERRORS } from '../../../circuits/error-codes.js';
import { EXAMPLE_NAMES, getExample, isExampleName } from '../../../circuits/examples.js';
import { GATES, NON_GATE_OPS } from '../../../circuits/gates.js';
import type { Circuit } from '../../../circuits/ir.js';
import { qasmOutput } from '../../../circuits/qasm/export-qasm.js';
import { CircuitInputSchema, parseCircuitInput, prefixProblems, requireCircuit, toWire } from '../../../circuits/wire-format.js';
import { ANALYSIS_ENTANGLEMENT_BUDGET_MS, analysisEntangledPairs } from '../../../coupling/entangled-pairs.js';
import { hardTimeoutFor } from '../../../compute/compute-pool.js';
import { runForRequest } from '../../anonymous-compute.js';
import { EXECUTION_DEVICES as DEVICES, PROVIDERS } from '../../../devices/device-catalogue.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { keepsGates, OutputFormat, OutputOptions } from './output-format.js';
import { anyCircuitField, circuitField, ExampleData, SchemaData, ValidateData } from './schemas.js';

/** Far above the catalogue's size; bounds the work done for a `devices` filter. */
const MAX_DEVICE_IDS = 64;

/** Arity of the operations that are not unitary gates (the wire format's `measurements` and `op` entries). */
const NON_GATE_ARITY = [
  { name: 'measure', qubits: 1, clbits: 1, params: 0 },
  { name: 'reset', qubits: 1, clbits: 0, params: 0 },
  { name: 'barrier', qubits: 'any' as const, clbits: 0, params: 0 },
] satisfies readonly { name: (typeof NON_GATE_OPS)[number]; qubits: number | 'any'; clbits: number; params: number }[];

function summary(c: Circuit, inputFormat: string) {
  let gates = 0;
  let two = 0;
  let measures = 0;
  for (const o of c.ops) {
    // a conditioned gate counts as a gate (validate's summary agrees with analyze's gate_count)
    const op = o.kind === 'conditioned' ? o.gate : o;
    if (op.kind === 'gate') {
      gates++;
      if (op.qubits.length === 2) two++;
    } else if (op.kind === 'measure') measures++;
  }
  return {
    input_format: inputFormat,
    num_qubits: c.numQubits,
    num_clbits: c.numClbits,
    operation_count: c.ops.length,
    gate_count: gates,
    two_qubit_count: two,
    measurement_count: measures,
    depth: circuitDepth(c),
  };
}

/** Circuits: wire format schema, validation, analysis, examples. Open endpoints (no session). */
export default async function circuitsRoutes(app: App): Promise<void> {
  const limits = app.config.circuitLimits;
  const tags = ['circuits'];

  app.get(
    '/v1/circuits/schema',
    {
      schema: {
        tags,
        operationId: 'getCircuitSchema',
        summary: 'The circuit wire format (schema 0.2) as JSON Schema, with the gate catalogue and this deployment’s limits',
        response: { 200: okResponse(SchemaData, 'The wire format, the gate catalogue and this deployment’s circuit limits') },
      },
    },
    async () => ({
      current_schema: '0.2' as const,
      accepted: ['0.2', '0.1 (deprecated, upgraded with a warning)', 'qasm2', 'qasm3'],
      json_schema: JSON.parse(JSON.stringify(CircuitInputSchema)) as unknown,
      gates: [...GATES.values()].map((g) => ({ name: g.name, arity: g.arity, params: g.params, origin: g.origin })),
      non_gate_operations: [...NON_GATE_OPS],
      operations: NON_GATE_ARITY,
      limits: { max_qubits: limits.maxQubits, max_gates: limits.maxGates, max_depth: limits.maxDepth },
    }),
  );

  app.post(
    '/v1/circuits/validate',
    {
      schema: {
        tags,
        operationId: 'validateCircuit',
        summary: 'Validate a circuit: every problem with a JSON path and a stable code (an invalid circuit is a 200 with valid=false)',
        body: Type.Object({ circuit: anyCircuitField(), output_format: Type.Optional(OutputFormat), output: Type.Optional(OutputOptions) }, { additionalProperties: false }),
        response: { 200: okResponse(ValidateData, 'Whether the circuit is valid: the normalized circuit and a summary, or every problem at its path') },
      },
    },
    async (req) => {
      // A circuit with symbolic parameters is valid as it is; runs bind them (parameter_values).
      const inlineGates = !keepsGates(req.body.output);
      const r = parseCircuitInput(req.body.circuit, limits, { allowParameters: true, keepGateDefinitions: !inlineGates });
      if (!r.ok) return { valid: false, errors: prefixProblems(r.errors, '/circuit'), warnings: [] };
      const warnings = [...r.warnings];
      const qasm = qasmOutput(r.circuit, req.body.output_format, { inlineGates, warnings });
      return {
        valid: true,
        errors: [],
        warnings,
        circuit: toWire(r.circuit),
        ...qasm,
        summary: summary(r.circuit, r.format),
      };
    },
  );

  app.post(
    '/v1/circuits/analyze',
    {
      // A session, when sent, lifts the anonymous compute limits of the entanglement probe.
      onRequest: app.optionalSession,
      schema: {
        tags,
        operationId: 'analyzeCircuit',
        summary: 'Analyze a circuit: counts, depth, T-count, interaction graph, per-provider/device compatibility, entanglement',
        body: Type.Object(
          {
            circuit: circuitField(),
            devices: Type.Optional(
              Type.Array(Type.String({ maxLength: 128 }), { maxItems: MAX_DEVICE_IDS, description: `Only these device ids, each at most once (default: every device; at most ${MAX_DEVICE_IDS})` }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: okResponse(Type.Ref('CircuitAnalysis'), 'The analysis') },
      },
    },
    async (req, reply) => {
      const { circuit, warnings } = requireCircuit(req.body.circuit, limits, '/circuit');
      const wanted = req.body.devices;
      if (wanted !== undefined) {
        const repeated = duplicateItemDetails(wanted, '/devices');
        if (repeated.length > 0) throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'A device id is listed more than once.', repeated);
        // One pass with the index at hand: looking each unknown id up again was quadratic in the list.
        const unknown = wanted.flatMap((id, i) => (DEVICES.some((d) => d.id === id) ? [] : [{ id, i }]));
        if (unknown.length > 0) {
          throw fail(
            HTTP_ERRORS.VALIDATION_FAILED,
            `Unknown device ids: ${unknown.map((u) => u.id).join(', ')}`,
            unknown.map(({ id, i }) => ({ in: 'body', path: `/devices/${i}`, code: 'UNKNOWN_DEVICE', message: `no device '${id}'; known: ${DEVICES.map((d) => d.id).join(', ')}` })),
          );
        }
      }
      const devices = wanted === undefined ? DEVICES : DEVICES.filter((d) => wanted.includes(d.id));
      // A probe that simulates runs on a compute thread, canceled with the request and counted (its
      // budget capped) like the other anonymous compute; one out of its scope answers at once here.
      const entangled = await analysisEntangledPairs(circuit, () =>
        runForRequest(app, req, reply, ({ signal, budgetCapMs }) => {
          const budget = Math.min(ANALYSIS_ENTANGLEMENT_BUDGET_MS, budgetCapMs ?? ANALYSIS_ENTANGLEMENT_BUDGET_MS);
          return app.compute.run('circuit.entangled-pairs', { circuit: toWire(circuit), limits, timeBudgetMs: budget }, { hardTimeoutMs: hardTimeoutFor(budget), signal });
        }),
      );
      const analysis = analyzeCircuit(circuit, { devices, entangledPairs: entangled });
      return { ...analysis, providers: PROVIDERS.map((p) => ({ id: p.id, name: p.name })), warnings };
    },
  );

  app.get(
    '/v1/circuits/example',
    {
      schema: {
        tags,
        operationId: 'getCircuitExamples',
        summary: 'Example circuits (bell, ghz, optimizable); all of them when name is omitted',
        querystring: Type.Object({ name: Type.Optional(Type.String({ maxLength: 64, description: `One of ${EXAMPLE_NAMES.join(', ')}` })) }),
        response: { 200: okResponse(ExampleData, 'The examples (the named one also at circuit)'), ...errors(404) },
      },
    },
    async (req) => {
      const name = req.query.name;
      if (name !== undefined && !isExampleName(name)) {
        throw fail(CIRCUITS_ERRORS.EXAMPLE_NOT_FOUND, `No example named '${name}'; valid names: ${EXAMPLE_NAMES.join(', ')}.`, {
          valid_names: [...EXAMPLE_NAMES],
        });
      }
      const names = name === undefined ? [...EXAMPLE_NAMES] : [name];
      const examples = names.map((n) => ({ name: n, circuit: getExample(n) }));
      return name === undefined ? { names, examples } : { names, examples, circuit: examples[0]!.circuit };
    },
  );
}
