/**
 * OpenQASM 2.0 and 3.0 export. The circuit's registers with their names, in declaration order
 * (default: one quantum register `q` and one classical register `c`);
 * gate names are the catalogue names, so `parseQasm(toQasmN(c))` gives back the same ops.
 * Gates outside the version's include file get a `gate` definition in the header (written
 * with exact decompositions, for other tools; qrail's importer keeps the catalogue gate).
 * Angles are written as `k*pi/d` when that expression evaluates to exactly the same double,
 * otherwise as the shortest decimal that reads back as the same double.
 */
import { fail } from '../../errors/app-error.js';
import { CIRCUITS_ERRORS } from '../error-codes.js';
import { gateSpec } from '../gates.js';
import type { Circuit, ConditionedOp, GateCall, Operation } from '../ir.js';
import { conditionPrefix } from './export-condition.js';
import { formatParamExpr } from '../param-expr.js';
import { formatAngle } from './format-angle.js';
import { reconcileGateCalls, sameOp } from './gate-calls.js';
import { callText, definitionText } from './gate-definition-text.js';
import { parseQasm } from './parse-qasm.js';

export { formatAngle };

/** Gates defined by OpenQASM 3's stdgates.inc (including its OpenQASM 2 compatibility block). */
const STDGATES = new Set([
  'p',
  'x',
  'y',
  'z',
  'h',
  's',
  'sdg',
  't',
  'tdg',
  'sx',
  'rx',
  'ry',
  'rz',
  'cx',
  'cy',
  'cz',
  'cp',
  'crx',
  'cry',
  'crz',
  'ch',
  'swap',
  'ccx',
  'cswap',
  'cu',
  'id',
  'u1',
  'u2',
  'u3',
]);

const RCCX_BODY = 'u2(0, pi) c; u1(pi/4) c; cx b, c; u1(-pi/4) c; cx a, c; u1(pi/4) c; cx b, c; u1(-pi/4) c; u2(0, pi) c;';
const RC3X_BODY =
  'u2(0, pi) d; u1(pi/4) d; cx c, d; u1(-pi/4) d; u2(0, pi) d; cx a, d; u1(pi/4) d; cx b, d; u1(-pi/4) d; cx a, d; ' +
  'u1(pi/4) d; cx b, d; u1(-pi/4) d; u2(0, pi) d; u1(pi/4) d; cx c, d; u1(-pi/4) d; u2(0, pi) d;';

/** Exact definitions (not only up to phase, except where noted) of gates missing from an include file. */
const DEFINITIONS: Readonly<Record<string, string>> = {
  ryy: 'gate ryy(theta) a, b { rx(pi/2) a; rx(pi/2) b; cx a, b; rz(theta) b; cx a, b; rx(-pi/2) a; rx(-pi/2) b; }',
  ccz: 'gate ccz a, b, c { h c; ccx a, b, c; h c; }',
  rxx: 'gate rxx(theta) a, b { h a; h b; cx a, b; rz(theta) b; cx a, b; h a; h b; }',
  rzz: 'gate rzz(theta) a, b { cx a, b; rz(theta) b; cx a, b; }',
  sxdg: 'gate sxdg a { inv @ sx a; }',
  u0: 'gate u0(gamma) a { U(0, 0, 0) a; }',
  u: 'gate u(theta, phi, lambda) a { U(theta, phi, lambda) a; }',
  csx: 'gate csx a, b { ctrl @ sx a, b; }',
  cu1: 'gate cu1(lambda) a, b { cp(lambda) a, b; }',
  cu3: 'gate cu3(theta, phi, lambda) a, b { cu(theta, phi, lambda, 0) a, b; }',
  rccx: `gate rccx a, b, c { ${RCCX_BODY} }`,
  rc3x: `gate rc3x a, b, c, d { ${RC3X_BODY} }`,
  c3x: 'gate c3x a, b, c, d { ctrl(3) @ x a, b, c, d; }',
  c3sqrtx: 'gate c3sqrtx a, b, c, d { ctrl(3) @ sx a, b, c, d; }',
  c4x: 'gate c4x a, b, c, d, e { ctrl(4) @ x a, b, c, d, e; }',
};

function usedGateNames(c: Circuit): Set<string> {
  const names = new Set<string>();
  for (const op of c.ops) if (op.kind === 'gate') names.add(op.name);
  for (const op of c.ops) if (op.kind === 'conditioned') names.add(op.gate.name);
  return names;
}

/** bit → its `reg[i]` spelling over registers laid out one after another (`fallback[i]` past them). */
function bitNames(regs: readonly { name: string; size: number }[] | undefined, fallback: string): (bit: number) => string {
  if (regs === undefined) return (b) => `${fallback}[${b}]`;
  const names: string[] = [];
  for (const r of regs) for (let i = 0; i < r.size; i++) names.push(`${r.name}[${i}]`);
  return (b) => names[b] ?? `${fallback}[${b}]`;
}

/** How the bits of a circuit are spelled: its registers' names, else `q` and `c`. */
export interface BitSpelling {
  readonly qubit: (q: number) => string;
  readonly clbit: (b: number) => string;
}

export function bitSpelling(c: Circuit): BitSpelling {
  return { qubit: bitNames(c.quantumRegisters, defaultQuantumName(c.registers ?? [])), clbit: bitNames(c.registers, 'c') };
}

/** A statement; a conditioned gate needs `condition` (its `if` prefixes, export-condition.ts). */
export function opLine(op: Operation, version: 2 | 3, bits: BitSpelling, condition?: (op: ConditionedOp) => string): string {
  const qb = bits.qubit;
  switch (op.kind) {
    case 'gate': {
      const ex = op.exprs;
      const ps = op.params.length > 0 ? `(${op.params.map((p, i) => (ex?.[i] === null || ex?.[i] === undefined ? formatAngle(p) : formatParamExpr(ex[i]))).join(', ')})` : '';
      return `${op.name}${ps} ${op.qubits.map(qb).join(', ')};`;
    }
    case 'measure':
      return version === 2 ? `measure ${qb(op.qubit)} -> ${bits.clbit(op.clbit)};` : `${bits.clbit(op.clbit)} = measure ${qb(op.qubit)};`;
    case 'reset':
      return `reset ${qb(op.qubit)};`;
    case 'barrier':
      return `barrier ${op.qubits.map(qb).join(', ')};`;
    case 'conditioned':
      if (condition === undefined) throw new Error('opLine: a conditioned gate needs its condition spelling');
      return condition(op) + opLine(op.gate, version, bits);
  }
}

/** The ops as statements; with kept calls, each call's span is written as the call. */
function body(c: Circuit, version: 2 | 3, calls: readonly GateCall[]): string[] {
  const bits = bitSpelling(c);
  const lines: string[] = [];
  let k = 0;
  for (let i = 0; i < c.ops.length;) {
    if (k < calls.length && calls[k]!.start === i) {
      const call = calls[k++]!;
      lines.push(callText(call, bits.qubit));
      i += call.count;
      continue;
    }
    const op = c.ops[i++]!;
    // An empty barrier has no OpenQASM spelling that means "no qubits"; it is a no-op, so it is dropped.
    if (op.kind === 'barrier' && op.qubits.length === 0) continue;
    const at = i - 1;
    lines.push(opLine(op, version, bits, (o) => conditionPrefix(c, o.condition, version, bits.clbit, at)));
  }
  for (; k < calls.length; k++) lines.push(callText(calls[k]!, bits.qubit)); // empty-bodied calls at the very end
  return lines;
}

function render(c: Circuit, version: 2 | 3, calls?: readonly GateCall[]): string {
  const lines: string[] = version === 2 ? ['OPENQASM 2.0;', 'include "qelib1.inc";'] : ['OPENQASM 3.0;', 'include "stdgates.inc";'];
  for (const name of [...usedGateNames(c)].sort()) {
    const known = version === 2 ? gateSpec(name)?.origin.startsWith('qelib1') === true : STDGATES.has(name);
    const def = DEFINITIONS[name];
    if (!known && def !== undefined) lines.push(def);
  }
  if (c.parameters !== undefined && version === 2) {
    const message = 'OpenQASM 2 has no input parameters: export the parameterized circuit as qasm3, or bind its parameters first';
    throw fail(CIRCUITS_ERRORS.CIRCUIT_INVALID, message, [{ path: '/parameters', code: 'PARAMETERS_UNBOUND', message }]);
  }
  // float[64] keeps every double exactly (an angle[n] input would round to n bits), as Qiskit writes them.
  for (const p of c.parameters ?? []) lines.push(`input float[64] ${p};`);
  if (calls !== undefined) for (const d of c.gateDefinitions ?? []) lines.push(definitionText(d));
  const regs = c.registers ?? (c.numClbits > 0 ? [{ name: 'c', size: c.numClbits }] : []);
  const qregs = c.quantumRegisters ?? (c.numQubits > 0 ? [{ name: defaultQuantumName(regs), size: c.numQubits }] : []);
  for (const r of qregs) lines.push(version === 2 ? `qreg ${r.name}[${r.size}];` : `qubit[${r.size}] ${r.name};`);
  for (const r of regs) lines.push(version === 2 ? `creg ${r.name}[${r.size}];` : `bit[${r.size}] ${r.name};`);
  lines.push(...body(c, version, calls ?? []));
  return lines.join('\n') + '\n';
}

/** `q`, unless a classical register took that name (a wire circuit may name one `q` and declare no quantum registers). */
function defaultQuantumName(regs: readonly { readonly name: string }[]): string {
  let name = 'q';
  while (regs.some((r) => r.name === name)) name += '_';
  return name;
}

/** OpenQASM 2.0 text (qelib1.inc, extended list; `ryy` and `ccz` defined in the header when used). */
export function toQasm2(c: Circuit): string {
  return render(c, 2);
}

/** OpenQASM 3.0 text (stdgates.inc; other catalogue gates defined in the header when used). */
export function toQasm3(c: Circuit): string {
  return render(c, 3);
}

/**
 * OpenQASM text that keeps the circuit's user gate definitions and writes each call whose ops are
 * unchanged as the call; the others are inlined, with a warning. The text is read back before it is
 * returned: should it not give exactly the circuit's ops, the fully inlined text is returned instead.
 */
export function toQasmKeepingGates(c: Circuit, version: 2 | 3, warnings: string[] = []): string {
  const inlined = render(c, version);
  if (c.gateDefinitions === undefined) return inlined;
  const { circuit: kept, dropped } = reconcileGateCalls(c);
  const calls = kept.gateCalls ?? [];
  const text = render(kept, version, calls);
  let back: Circuit | undefined;
  try {
    // The importer allows 4 clbits per allowed qubit; a circuit may have more.
    back = parseQasm(text, { maxQubits: Math.max(c.numQubits, Math.ceil(c.numClbits / 4)), maxOps: Math.max(c.ops.length, calls.length) + 1 });
  } catch {
    back = undefined;
  }
  const ops = c.ops.filter((op) => op.kind !== 'barrier' || op.qubits.length > 0); // as written
  if (back === undefined || back.ops.length !== ops.length || back.ops.some((op, i) => !sameOp(op, ops[i]!))) {
    warnings.push('inline_gates: false: the program with gate calls did not read back as the circuit, so every user gate is written inlined');
    return inlined;
  }
  if (dropped > 0) warnings.push(droppedWarning(dropped, c.gateCalls?.length ?? 0));
  return text;
}

/**
 * For a changed circuit (optimized) with inline_gates false: only the calls that still equal their
 * ops, so that the returned wire circuit and the QASM agree, with a warning when some were dropped.
 */
export function keptGateCalls(c: Circuit, inlineGates: boolean, warnings: string[]): Circuit {
  if (inlineGates || c.gateCalls === undefined) return c;
  const { circuit, dropped } = reconcileGateCalls(c);
  if (dropped > 0) warnings.push(droppedWarning(dropped, c.gateCalls.length));
  return circuit;
}

function droppedWarning(dropped: number, total: number): string {
  return `inline_gates: false: ${dropped} of ${total} user gate calls no longer equal their definition (the circuit was changed) and are written inlined`;
}

/** A circuit output format of the API: `json` (wire format only) or an OpenQASM version. */
export type CircuitOutputFormat = 'json' | 'qasm2' | 'qasm3';

/** The `output` options of the routes that return a circuit (API `output: {inline_gates}`). */
export interface QasmOutputOptions {
  /** False: keep user gate definitions and calls (src/circuits/qasm/gate-calls.ts). Default true. */
  readonly inlineGates?: boolean | undefined;
  /** Collects what export could not keep. */
  readonly warnings?: string[] | undefined;
}

/** `{ qasm }` for a QASM output format, nothing for json (the wire circuit is always returned). */
export function qasmOutput(c: Circuit, fmt: CircuitOutputFormat | undefined, options: QasmOutputOptions = {}): { qasm?: string } {
  if (fmt !== 'qasm2' && fmt !== 'qasm3') return {};
  const version = fmt === 'qasm2' ? 2 : 3;
  return { qasm: options.inlineGates === false ? toQasmKeepingGates(c, version, options.warnings) : render(c, version) };
}
