/**
 * `circuit.simulate.batch` (issue 22 item 3; docs/jobs.md#batches): up to 100 circuits in one
 * prepaid job. One reservation for the sum of the items' prices (each priced as
 * `circuit.simulate` prices it: simulationQuote is the one owner of the formula), one receipt
 * with a line per item; an item that fails (its circuit does not pass the checks, or its
 * simulation fails) is reported on its own and its share is released when the job is settled,
 * in the transaction that captures the items that completed (jobs_complete → ledger_capture).
 */
import type { Circuit } from '../../circuits/ir.js';
import { CIRCUITS_ERRORS } from '../../circuits/error-codes.js';
import { requireCircuit, type CircuitLimits } from '../../circuits/wire-format.js';
import { fail, isAppError } from '../../errors/app-error.js';
import { formatMicros } from '../../billing/money.js';
import type { Capability, JobCharge, ReceiptLine } from '../capability.js';
import { JOB_FAILURE } from '../error-codes.js';
import type { JobsComputePort } from '../ports.js';
import { BELL, CIRCUIT_FIELD_SCHEMA, CIRCUIT_FIELD_SHALLOW } from './circuit-schema.js';
import { JOB_METHOD_LIMITS, JOB_SIM_MAX_QUBITS, JOB_SIM_MAX_SHOTS, simulationQuote } from './circuit-simulate.js';
import { chooseMethod } from '../../simulation/index.js';
import { methodFactor } from './method-pricing.js';

/** Items of one batch (issue 22: batches of up to 100 circuits). */
export const BATCH_MAX_ITEMS = 100;
/** Gates of all the items together: a batch is bounded as a whole, not only per circuit. */
export const BATCH_MAX_TOTAL_GATES = 200_000;

type Item = { readonly ok: true; readonly circuit: Circuit; readonly priceMicros: bigint } | { readonly ok: false; readonly code: string; readonly message: string; readonly priceMicros: bigint };

interface Prepared {
  readonly items: readonly Item[];
  readonly shots: number;
  readonly seed: number | undefined;
}

interface ItemResult {
  readonly index: number;
  readonly status: 'completed' | 'failed';
  readonly price: string;
  readonly result: Record<string, unknown> | null;
  readonly error: { code: string; message: string } | null;
}

export function circuitSimulateBatch(limits: CircuitLimits, compute: JobsComputePort): Capability<Prepared> {
  const itemLimits = { ...limits, maxQubits: Math.min(limits.maxQubits, JOB_SIM_MAX_QUBITS) };
  const props = (circuit: unknown) => ({
    circuits: { type: 'array', minItems: 1, maxItems: BATCH_MAX_ITEMS, items: circuit, description: `1–${BATCH_MAX_ITEMS} circuits, each simulated on its own` },
    shots: { type: 'integer', minimum: 1, maximum: JOB_SIM_MAX_SHOTS, description: 'Samples of each circuit' },
    seed: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Sampling seed of item 0; item i uses seed + i' },
  });
  return {
    id: 'circuit.simulate.batch',
    product: 'product-one',
    title: 'Circuit simulation, batch',
    description: `Simulates up to ${BATCH_MAX_ITEMS} circuits (at most ${BATCH_MAX_TOTAL_GATES} gates in all) as one job: one reservation, one receipt with a line per circuit. An item that fails is reported on its own and its share released; the items that completed are charged as circuit.simulate prices them.`,
    pricing: {
      formula: 'Σ over the circuits of 0.000100 + 0.000001 × ceil(shots / 100) × 2^max(0, num_qubits − 10); a circuit that does not pass the checks reserves the 10-qubit price and is never charged',
      parameters: { base: '0.000100', per_100_shots: '0.000001', free_qubits: 10, max_items: BATCH_MAX_ITEMS, max_total_gates: BATCH_MAX_TOTAL_GATES },
    },
    requestSchema: { type: 'object', additionalProperties: false, required: ['circuits', 'shots'], properties: props(CIRCUIT_FIELD_SCHEMA) },
    validationSchema: { type: 'object', additionalProperties: false, required: ['circuits', 'shots'], properties: props(CIRCUIT_FIELD_SHALLOW) },
    example: { circuits: [BELL, BELL], shots: 1000 },
    onInterrupted: 'rerun',
    prepare(request) {
      const shots = request['shots'] as number;
      const inputs = request['circuits'] as unknown[];
      // An item whose circuit does not pass the checks fails on its own (Braket's batches do the
      // same); it reserves the smallest price for its shots so that its line shows the release.
      const items = inputs.map((input, i): Item => {
        try {
          const { circuit } = requireCircuit(input, itemLimits, `/circuits/${i}`);
          // Each item runs (and is priced) with the method circuit.simulate's auto would pick.
          const method = chooseMethod(circuit, 'auto', JOB_METHOD_LIMITS).method;
          return { ok: true, circuit, priceMicros: simulationQuote(circuit.numQubits, shots, { name: method, factor: methodFactor(circuit, method) }).priceMicros };
        } catch (e) {
          if (!isAppError(e)) throw e;
          return { ok: false, code: e.code, message: e.message, priceMicros: simulationQuote(0, shots).priceMicros };
        }
      });
      const valid = items.filter((x): x is Extract<Item, { ok: true }> => x.ok);
      // Nothing would run: refuse the whole submission (nothing is reserved), naming the first item's problem.
      if (valid.length === 0) requireCircuit(inputs[0], itemLimits, '/circuits/0');
      if (valid.length === 0) throw fail(CIRCUITS_ERRORS.CIRCUIT_INVALID, 'No circuit of the batch passes the checks.');
      const gates = valid.reduce((n, x) => n + x.circuit.ops.length, 0);
      if (gates > BATCH_MAX_TOTAL_GATES) {
        throw fail(CIRCUITS_ERRORS.CIRCUIT_INVALID, `The batch has ${gates} gates in all; at most ${BATCH_MAX_TOTAL_GATES}.`, [
          { path: '/circuits', code: 'TOO_MANY_GATES', message: `at most ${BATCH_MAX_TOTAL_GATES} gates in all` },
        ]);
      }
      return { items, shots, seed: request['seed'] as number | undefined };
    },
    quote(p) {
      const total = p.items.reduce((s, x) => s + x.priceMicros, 0n);
      return {
        priceMicros: total,
        breakdown: {
          items: p.items.length,
          items_invalid: p.items.filter((x) => !x.ok).length,
          shots: p.shots,
          item_prices: p.items.map((x) => formatMicros(x.priceMicros)).join(' '),
        },
      };
    },
    async run(p, ctx) {
      const out: ItemResult[] = [];
      for (const [index, item] of p.items.entries()) {
        const price = formatMicros(item.priceMicros);
        if (!item.ok) {
          out.push({ index, status: 'failed', price, result: null, error: { code: item.code, message: item.message } });
          continue;
        }
        try {
          const seed = p.seed === undefined ? undefined : p.seed + index;
          const method = chooseMethod(item.circuit, 'auto', JOB_METHOD_LIMITS).method;
          const r = await compute.simulate(item.circuit, { shots: p.shots, ...(seed === undefined ? {} : { seed }), maxQubits: JOB_SIM_MAX_QUBITS, maxProbabilityEntries: 4096, method }, ctx.signal);
          out.push({
            index,
            status: 'completed',
            price,
            result: { counts: r.counts, shots: r.shots, seed: r.seed, num_qubits: r.numQubits, num_clbits: r.numClbits, bit_order: 'clbit 0 rightmost' },
            error: null,
          });
        } catch (e) {
          // A cancel stops the whole batch (the job ends canceled, nothing captured); any other failure is this item's.
          if (ctx.signal.aborted || !isAppError(e)) throw e;
          out.push({ index, status: 'failed', price, result: null, error: { code: e.code, message: e.message } });
        }
      }
      const completed = out.filter((x) => x.status === 'completed').length;
      if (completed === 0) {
        const codes = [...new Set(out.map((x) => x.error?.code))].join(', ');
        throw fail({ code: JOB_FAILURE.BATCH_ALL_FAILED, status: 422, description: '' }, `Every item of the batch failed (${codes}); nothing was charged.`);
      }
      return { items: out, completed, failed: out.length - completed };
    },
    charge(p, result): JobCharge {
      const items = result['items'] as ItemResult[];
      const lines = items.map((x): ReceiptLine => {
        const reserved = (p.items[x.index] as Item).priceMicros;
        const captured = x.status === 'completed' ? reserved : 0n;
        return {
          index: x.index,
          status: x.status,
          amount_reserved: formatMicros(reserved),
          amount_captured: formatMicros(captured),
          amount_released: formatMicros(reserved - captured),
          ...(x.error === null ? {} : { error_code: x.error.code }),
        };
      });
      const captureMicros = items.reduce((s, x) => s + (x.status === 'completed' ? (p.items[x.index] as Item).priceMicros : 0n), 0n);
      return { captureMicros, lines };
    },
  };
}
