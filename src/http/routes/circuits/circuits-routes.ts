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
import {
  CircuitInputSchema,
  CircuitV01Schema,
  CircuitV02Schema,
  parseCircuitInput,
  prefixProblems,
  QasmInputSchema,
  requireCircuit,
  toWire,
} from '../../../circuits/wire-format.js';
import { ANALYSIS_ENTANGLEMENT_BUDGET_MS, entangledPairs, entanglementProbeSimulates } from '../../../coupling/entangled-pairs.js';
import { hardTimeoutFor } from '../../../compute/compute-pool.js';
import { runForRequest } from '../../anonymous-compute.js';
import { DEVICES, PROVIDERS } from '../../../devices/device-catalogue.js';
import type { App } from '../../app-types.js';
import { errorResponses, okResponse } from '../../envelope-schemas.js';
import { OutputFormat } from './output-format.js';

/** Far above the catalogue's size; bounds the work done for a `devices` filter. */
const MAX_DEVICE_IDS = 64;

const CircuitField = Type.Unknown({
  description:
    'A circuit: wire format schema 0.2 (`{"schema":"0.2","num_qubits",…}`), legacy 0.1, or `{"format":"qasm2"|"qasm3","source":"…"}`. ' +
    'The full JSON Schema is served by GET /v1/circuits/schema (components CircuitV02, CircuitV01, QasmInput).',
});

const Problem = Type.Object(
  {
    path: Type.String({ description: 'JSON Pointer into the request body, e.g. /circuit/gates/3/qubits/1' }),
    code: Type.String(),
    message: Type.String(),
    line: Type.Optional(Type.Integer()),
    column: Type.Optional(Type.Integer()),
  },
  { additionalProperties: true },
);

const Summary = Type.Object({
  input_format: Type.String({ description: 'json-0.2, json-0.1, qasm2 or qasm3' }),
  num_qubits: Type.Integer(),
  num_clbits: Type.Integer(),
  operation_count: Type.Integer(),
  gate_count: Type.Integer(),
  two_qubit_count: Type.Integer(),
  measurement_count: Type.Integer(),
  depth: Type.Integer(),
});

const ValidateData = Type.Object({
  valid: Type.Boolean(),
  errors: Type.Array(Problem),
  warnings: Type.Array(Type.String()),
  circuit: Type.Optional(Type.Unknown({ description: 'The normalized 0.2 circuit (valid circuits only)' })),
  qasm: Type.Optional(Type.String({ description: 'OpenQASM text when output_format is qasm2 or qasm3' })),
  summary: Type.Optional(Summary),
});

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
  for (const op of c.ops) {
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
  for (const s of [CircuitV02Schema, CircuitV01Schema, QasmInputSchema]) app.addSchema(s);

  app.get(
    '/v1/circuits/schema',
    {
      schema: {
        tags,
        summary: 'The circuit wire format (schema 0.2) as JSON Schema, with the gate catalogue and this deployment’s limits',
        response: {
          200: okResponse(
            Type.Object({
              current_schema: Type.Literal('0.2'),
              accepted: Type.Array(Type.String()),
              json_schema: Type.Unknown(),
              gates: Type.Array(Type.Object({ name: Type.String(), arity: Type.Integer(), params: Type.Integer(), origin: Type.String() })),
              non_gate_operations: Type.Array(Type.String()),
              operations: Type.Array(
                Type.Object({
                  name: Type.String(),
                  qubits: Type.Union([Type.Integer(), Type.Literal('any')], { description: 'qubits it acts on; barrier takes one or more' }),
                  clbits: Type.Integer(),
                  params: Type.Integer(),
                }),
                { description: 'measure, reset and barrier with their arity (wire format: measurements[] and gates[] entries)' },
              ),
              limits: Type.Object({ max_qubits: Type.Integer(), max_gates: Type.Integer(), max_depth: Type.Integer() }),
            }),
          ),
        },
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
        summary: 'Validate a circuit: every problem with a JSON path and a stable code (an invalid circuit is a 200 with valid=false)',
        body: Type.Object({ circuit: CircuitField, output_format: Type.Optional(OutputFormat) }, { additionalProperties: false }),
        response: { 200: okResponse(ValidateData), ...errorResponses },
      },
    },
    async (req) => {
      const r = parseCircuitInput(req.body.circuit, limits);
      if (!r.ok) return { valid: false, errors: prefixProblems(r.errors, '/circuit'), warnings: [] };
      return {
        valid: true,
        errors: [],
        warnings: r.warnings,
        circuit: toWire(r.circuit),
        ...qasmOutput(r.circuit, req.body.output_format),
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
        summary: 'Analyze a circuit: counts, depth, T-count, interaction graph, per-provider/device compatibility, entanglement',
        body: Type.Object(
          {
            circuit: CircuitField,
            devices: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: MAX_DEVICE_IDS, description: `Only these device ids, each at most once (default: every device; at most ${MAX_DEVICE_IDS})` })),
          },
          { additionalProperties: false },
        ),
        response: { 200: okResponse(Type.Object({}, { additionalProperties: true })), ...errorResponses },
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
          throw fail(HTTP_ERRORS.VALIDATION_FAILED, `Unknown device ids: ${unknown.map((u) => u.id).join(', ')}`, unknown.map(({ id, i }) => ({ in: 'body', path: `/devices/${i}`, code: 'UNKNOWN_DEVICE', message: `no device '${id}'; known: ${DEVICES.map((d) => d.id).join(', ')}` })));
        }
      }
      const devices = wanted === undefined ? DEVICES : DEVICES.filter((d) => wanted.includes(d.id));
      // A probe that simulates runs on a compute thread, canceled with the request and counted (its
      // budget capped) like the other anonymous compute; one out of its scope answers at once here.
      const entangled = !entanglementProbeSimulates(circuit)
        ? await entangledPairs(circuit, { finalState: () => { throw new Error('the entanglement probe simulated a circuit out of its scope'); } })
        : await runForRequest(app, req, reply, ({ signal, budgetCapMs }) => {
            const budget = Math.min(ANALYSIS_ENTANGLEMENT_BUDGET_MS, budgetCapMs ?? ANALYSIS_ENTANGLEMENT_BUDGET_MS);
            return app.compute.run('circuit.entangled-pairs', { circuit: toWire(circuit), limits, timeBudgetMs: budget }, { hardTimeoutMs: hardTimeoutFor(budget), signal });
          });
      const analysis = analyzeCircuit(circuit, { devices, entangledPairs: entangled });
      return { ...analysis, providers: PROVIDERS.map((p) => ({ id: p.id, name: p.name })), warnings };
    },
  );

  app.get(
    '/v1/circuits/example',
    {
      schema: {
        tags,
        summary: 'Example circuits (bell, ghz, optimizable); all of them when name is omitted',
        querystring: Type.Object({ name: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: {
          200: okResponse(
            Type.Object({
              names: Type.Array(Type.String()),
              examples: Type.Array(Type.Object({ name: Type.String(), circuit: Type.Unknown() })),
              circuit: Type.Optional(Type.Unknown({ description: 'The named example (when name is given)' })),
            }),
          ),
          404: errorResponses[400],
        },
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
