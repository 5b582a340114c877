/**
 * `gate_definitions` and `gate_calls` of wire format 0.2: the user gate definitions an OpenQASM
 * import kept (export with `inline_gates: false`) and the calls of them, each the span of ops it
 * expanded to. Checked here for shape and ranges; whether a call equals its ops is checked at
 * export (src/circuits/qasm/gate-calls.ts), which inlines a call that does not.
 */
import { gateSpec } from './gates.js';
import { REGISTER_NAME, type GateCall, type GateDefinition } from './ir.js';
import { QASM_ALIASES } from './qasm/gate-modifiers.js';
import { MAX_GATE_BODY_CHARS, MAX_GATE_DEFINITIONS } from './qasm/gate-definition-text.js';
import { checkKeys, isObject, type WireProblem, type WireProblems as Problems } from './wire-checks.js';

/** Parameters and qubit arguments of one definition (OpenQASM has no limit; a definition with more is not kept). */
const MAX_DEFINITION_ARGS = 64;
const isNameList = (v: unknown, min: number): v is string[] =>
  Array.isArray(v) && v.length >= min && v.length <= MAX_DEFINITION_ARGS && v.every((n) => typeof n === 'string' && REGISTER_NAME.test(n)) && new Set(v).size === v.length;

/** The array at `key`, at most `max` long; undefined (with its problem) when absent, not an array or too long. */
function boundedArray(obj: Record<string, unknown>, key: string, max: number, tooMany: WireProblem['code'], noun: string, out: Problems): unknown[] | undefined {
  const list = obj[key];
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) {
    out.push({ path: `/${key}`, code: 'WRONG_TYPE', message: `'${key}' must be an array` });
    return undefined;
  }
  if (list.length > max) {
    out.push({ path: `/${key}`, code: tooMany, message: `at most ${max} ${noun}, got ${list.length}` });
    return undefined;
  }
  return list as unknown[];
}

export function declaredGateDefinitions(obj: Record<string, unknown>, out: Problems): GateDefinition[] | undefined {
  const list = boundedArray(obj, 'gate_definitions', MAX_GATE_DEFINITIONS, 'TOO_MANY_DEFINITIONS', 'gate definitions', out);
  if (list === undefined) return undefined;
  const defs: GateDefinition[] = [];
  list.forEach((d: unknown, i) => {
    const path = `/gate_definitions/${i}`;
    const params = isObject(d) ? (d['params'] ?? []) : undefined;
    if (
      !isObject(d) ||
      typeof d['name'] !== 'string' ||
      !REGISTER_NAME.test(d['name']) ||
      !isNameList(params, 0) ||
      !isNameList(d['qubits'], 1) ||
      typeof d['body'] !== 'string' ||
      d['body'].length > MAX_GATE_BODY_CHARS ||
      /[{}]/.test(d['body'])
    ) {
      const message = `a gate definition is {name, params?, qubits, body}: identifiers (at most ${MAX_DEFINITION_ARGS} of each, at least one qubit) and the body's OpenQASM statements (at most ${MAX_GATE_BODY_CHARS} characters, no braces)`;
      out.push({ path, code: 'WRONG_TYPE', message });
      return;
    }
    checkKeys(d, ['name', 'params', 'qubits', 'body'], path, out);
    const name = d['name'];
    if (gateSpec(QASM_ALIASES[name] ?? name) !== undefined) {
      out.push({ path: `${path}/name`, code: 'GATE_CALL_INVALID', message: `'${name}' is a catalogue gate: only user gates are defined` });
    } else if (defs.some((x) => x.name === name)) {
      out.push({ path: `${path}/name`, code: 'DUPLICATE_PARAMETER', message: `gate '${name}' is defined twice` });
    }
    defs.push({ name, params: params, qubits: d['qubits'], body: d['body'] });
  });
  return defs;
}

/** Calls in op order, spans disjoint and within the `opCount` ops (gates, then measurements). */
export function declaredGateCalls(obj: Record<string, unknown>, defs: readonly GateDefinition[], numQubits: number, opCount: number, maxCalls: number, out: Problems): GateCall[] | undefined {
  const list = boundedArray(obj, 'gate_calls', maxCalls, 'TOO_MANY_GATES', 'gate calls', out);
  if (list === undefined) return undefined;
  const calls: GateCall[] = [];
  let end = 0;
  list.forEach((k: unknown, i) => {
    const path = `/gate_calls/${i}`;
    const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
    if (!isObject(k) || typeof k['gate'] !== 'string' || !Array.isArray(k['qubits']) || !isIndex(k['start']) || !isIndex(k['count'])) {
      out.push({ path, code: 'WRONG_TYPE', message: 'a gate call is {gate, params?, qubits, start, count}: a defined gate, numbers, qubit indices and its span of ops' });
      return;
    }
    checkKeys(k, ['gate', 'params', 'qubits', 'start', 'count'], path, out);
    const def = defs.find((d) => d.name === k['gate']);
    if (def === undefined) {
      out.push({ path: `${path}/gate`, code: 'GATE_CALL_INVALID', message: `'${String(k['gate'])}' is not in gate_definitions` });
      return;
    }
    const params = k['params'] ?? [];
    if (!Array.isArray(params) || params.length !== def.params.length || !params.every((p) => typeof p === 'number' && Number.isFinite(p))) {
      out.push({ path: `${path}/params`, code: 'GATE_CALL_INVALID', message: `gate '${def.name}' takes ${def.params.length} finite numbers` });
      return;
    }
    const qubits = k['qubits'] as unknown[];
    if (qubits.length !== def.qubits.length || !qubits.every((q) => isIndex(q) && q < numQubits) || new Set(qubits).size !== qubits.length) {
      out.push({ path: `${path}/qubits`, code: 'GATE_CALL_INVALID', message: `gate '${def.name}' acts on ${def.qubits.length} distinct qubits below ${numQubits}` });
      return;
    }
    if (k['start'] < end || k['start'] + k['count'] > opCount) {
      out.push({ path: `${path}/start`, code: 'GATE_CALL_INVALID', message: `calls are in op order with disjoint spans within the ${opCount} ops (gates, then measurements)` });
      return;
    }
    end = k['start'] + k['count'];
    calls.push({ name: def.name, params: params as number[], qubits: qubits as number[], start: k['start'], count: k['count'] });
  });
  return calls;
}
