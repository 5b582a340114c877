/**
 * Wire format → IR (with every problem reported) and IR → normalized wire format 0.2.
 * Accepted inputs: schema 0.2 JSON, legacy 0.1 JSON (upgraded, with a deprecation
 * warning), and `{"format":"qasm2"|"qasm3","source":"…"}`. Paths in problems are JSON
 * Pointers relative to the circuit; `requireCircuit` prefixes them (default `/circuit`).
 */
import { fail } from '../errors/app-error.js';
import { circuitDepth } from './depth.js';
import { CIRCUITS_ERRORS, type CircuitProblemCode } from './error-codes.js';
import { gateSpec } from './gates.js';
import { barrier, circuit, conditioned, MAX_REGISTERS, measure, REGISTER_NAME, reset, symbolicGate, type Circuit, type ClassicalRegister, type GateOp, type Operation } from './ir.js';
import { formatParamExpr, isValidParameterName, MAX_PARAMETERS, parseParamExpr, type ParamExpr } from './param-expr.js';
import { evalExpr, parseExpr, unknownNames, type TokenCursor } from './qasm/expr.js';
import { tokenize, type Token } from './qasm/lexer.js';
import { parseQasm } from './qasm/parse-qasm.js';
import { scanCircuitInput } from './scan-circuit-input.js';
import { checkKeys, isObject } from './wire-checks.js';
import { readCondition } from './wire-condition.js';
import { declaredGateCalls, declaredGateDefinitions } from './wire-gate-definitions.js';
import type { WireCircuitV02, WireGate } from './wire-schema.js';

export * from './wire-schema.js';

export interface CircuitLimits {
  readonly maxQubits: number;
  readonly maxGates: number;
  readonly maxDepth: number;
}

/** The service defaults (config.circuitLimits overrides them per deployment). */
export const DEFAULT_CIRCUIT_LIMITS: CircuitLimits = Object.freeze({ maxQubits: 64, maxGates: 100_000, maxDepth: 50_000 });

export interface CircuitProblem {
  readonly path: string;
  readonly code: CircuitProblemCode;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

export type InputFormat = 'json-0.2' | 'json-0.1' | 'qasm2' | 'qasm3';

export type ParseCircuitResult =
  { readonly ok: true; readonly circuit: Circuit; readonly warnings: string[]; readonly format: InputFormat } | { readonly ok: false; readonly errors: CircuitProblem[] };

export const DEPRECATION_WARNING_V01 = 'Circuit schema 0.1 is deprecated and was upgraded to 0.2; send {"schema":"0.2",…} (see GET /v1/circuits/schema).';

type Problems = CircuitProblem[];

/**
 * Problems reported for one circuit at most. A 1 MB body of `"qubits":[0,0,0,…]` has half a
 * million problems: reporting each took seconds of event loop and a 68 MB answer. The parser
 * stops at the cap and says so with a last TOO_MANY_PROBLEMS entry.
 */
export const MAX_CIRCUIT_PROBLEMS = 100;
const PROBLEM_LIMIT = new Error('circuit problem limit');

/** A problem list that aborts the parse (throws PROBLEM_LIMIT) when one more than the cap is pushed. */
class BoundedProblems extends Array<CircuitProblem> {
  override push(...items: CircuitProblem[]): number {
    for (const item of items) {
      if (this.length >= MAX_CIRCUIT_PROBLEMS) throw PROBLEM_LIMIT;
      super.push(item);
    }
    return this.length;
  }
}
const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** One operation in a format-neutral shape, each value with the path it came from. */
interface RawOp {
  readonly path: string;
  readonly name: unknown;
  readonly namePath: string;
  readonly qubits: readonly { value: unknown; path: string }[];
  readonly qubitsPath: string;
  readonly params: readonly { value: unknown; path: string }[] | undefined;
  readonly paramsPath: string;
  readonly clbits: readonly { value: unknown; path: string }[] | undefined;
  readonly clbitsPath: string;
  /** A gate's `condition` (schema 0.2 only), as given. */
  readonly condition?: unknown;
  readonly conditionPath?: string;
}

/** An array field: undefined (with a problem when required) if missing or not an array. */
function arrayField(obj: Record<string, unknown>, key: string, path: string, required: boolean, out: Problems): { value: unknown; path: string }[] | undefined {
  const v = obj[key];
  if (v === undefined) {
    if (required) out.push({ path: `${path}/${key}`, code: 'REQUIRED', message: `'${key}' is required` });
    return undefined;
  }
  if (!Array.isArray(v)) {
    out.push({ path: `${path}/${key}`, code: 'WRONG_TYPE', message: `'${key}' must be an array, got ${typeName(v)}` });
    return undefined;
  }
  return (v as unknown[]).map((value, i) => ({ value, path: `${path}/${key}/${i}` }));
}

/** A non-negative integer size field; undefined when unusable. */
function sizeField(obj: Record<string, unknown>, key: string, path: string, min: number, def: number | undefined, out: Problems): number | undefined {
  const v = obj[key];
  if (v === undefined) {
    if (def !== undefined) return def;
    out.push({ path: `${path}/${key}`, code: 'REQUIRED', message: `'${key}' is required` });
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    out.push({ path: `${path}/${key}`, code: 'WRONG_TYPE', message: `'${key}' must be an integer, got ${JSON.stringify(v) ?? typeName(v)}` });
    return undefined;
  }
  if (v < min) {
    out.push({ path: `${path}/${key}`, code: 'TOO_SMALL', message: `'${key}' must be at least ${min}, got ${v}` });
    return undefined;
  }
  return v;
}

class ArrayCursor implements TokenCursor {
  private i = 0;
  constructor(private readonly toks: readonly Token[]) {}
  peek(): Token {
    return this.toks[Math.min(this.i, this.toks.length - 1)]!;
  }
  next(): Token {
    const t = this.peek();
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }
  accept(text: string): boolean {
    if (this.peek().text !== text) return false;
    this.next();
    return true;
  }
  expect(text: string): Token {
    if (this.peek().text !== text) throw new Error(`expected '${text}'`);
    return this.next();
  }
}

/** Longest parameter expression quoted back in a message. */
const QUOTE_MAX = 40;
const quote = (v: string): string => `'${v.length > QUOTE_MAX ? `${v.slice(0, QUOTE_MAX)}…` : v}'`;

/**
 * A parameter: a number, or a string expression in radians such as "pi/4"; otherwise the problem.
 * A well-formed expression naming something that is neither a constant nor a declared parameter
 * is PARAMETER_UNKNOWN (it reads as a parameter the circuit forgot to declare), not WRONG_TYPE.
 */
function paramValue(v: unknown, declared: ReadonlySet<string>): number | { code: CircuitProblemCode; message: string } {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return { code: 'WRONG_TYPE', message: `a parameter must be a number or an expression string, got ${typeName(v)}` };
  try {
    const cursor = new ArrayCursor(tokenize(v));
    const e = parseExpr(cursor);
    if (cursor.peek().type !== 'eof') return { code: 'WRONG_TYPE', message: `a parameter ${quote(v)} is not a single expression` };
    const unknown = unknownNames(e, new Map());
    if (unknown.length > 0) {
      const name = quote(unknown[0]!);
      const has = declared.size === 0 ? 'the circuit declares none' : `it declares ${[...declared].join(', ')}`;
      return { code: 'PARAMETER_UNKNOWN', message: `${name} is not a declared parameter (declare it in "parameters": ${has}; the constants are pi, tau and euler)` };
    }
    return evalExpr(e, new Map());
  } catch (err) {
    // The expression bounds keep their own codes, so a client can tell "too complex" from "wrong".
    const d = (err as { details?: unknown }).details;
    const code = Array.isArray(d) ? (d[0] as { code?: unknown } | undefined)?.code : undefined;
    if (code === 'EXPRESSION_TOO_DEEP' || code === 'EXPRESSION_TOO_LONG') return { code, message: `the parameter expression is too complex: ${(d as { message: string }[])[0]!.message}` };
    return { code: 'WRONG_TYPE', message: `a parameter ${quote(v)} is not an expression (use numbers, pi, + - * / ^ and sin, cos, sqrt, …)` };
  }
}

function indexValue(entry: { value: unknown; path: string }, size: number | undefined, kind: 'qubit' | 'clbit', out: Problems): number | undefined {
  const v = entry.value;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    out.push({ path: entry.path, code: 'WRONG_TYPE', message: `a ${kind} index must be a non-negative integer, got ${JSON.stringify(v) ?? typeName(v)}` });
    return undefined;
  }
  if (size !== undefined && v >= size) {
    const code = kind === 'qubit' ? 'QUBIT_OUT_OF_RANGE' : 'CLBIT_OUT_OF_RANGE';
    out.push({ path: entry.path, code, message: `${kind} ${v} is out of range: the circuit has ${size} ${kind}s (0..${size - 1})` });
    return undefined;
  }
  return v;
}

/** Validates format-neutral operations; returns IR ops only when nothing was wrong with them. */
function convertOps(raw: readonly RawOp[], nq: number | undefined, nc: number | undefined, out: Problems, declared: ReadonlySet<string> = NO_NAMES): Operation[] {
  const ops: Operation[] = [];
  const before = out.length;
  for (const r of raw) {
    if (typeof r.name !== 'string') {
      out.push({ path: r.namePath, code: r.name === undefined ? 'REQUIRED' : 'WRONG_TYPE', message: 'the operation name must be a string' });
      continue;
    }
    const name = r.name;
    const spec = gateSpec(name);
    const structural = name === 'measure' || name === 'reset' || name === 'barrier';
    if (spec === undefined && !structural) {
      out.push({ path: r.namePath, code: 'UNKNOWN_GATE', message: `unknown gate '${name}' (see GET /v1/circuits/schema for the catalogue)` });
    }
    const qs = r.qubits.map((e) => indexValue(e, nq, 'qubit', out));
    const seen = new Map<number, number>();
    qs.forEach((q, i) => {
      if (q === undefined) return;
      if (seen.has(q)) out.push({ path: r.qubits[i]!.path, code: 'DUPLICATE_QUBIT', message: `qubit ${q} appears twice in one operation (first at index ${seen.get(q)})` });
      else seen.set(q, i);
    });
    const known = spec !== undefined || structural;
    const arity = spec?.arity ?? (name === 'barrier' ? undefined : 1);
    if (!known) {
      // An unknown gate has no arity or parameter count to check against.
    } else if (arity !== undefined && r.qubits.length !== arity) {
      out.push({ path: r.qubitsPath, code: 'WRONG_ARITY', message: `'${name}' acts on ${arity} qubit${arity === 1 ? '' : 's'}, got ${r.qubits.length}` });
    } else if (name === 'barrier' && r.qubits.length === 0) {
      out.push({ path: r.qubitsPath, code: 'WRONG_ARITY', message: 'a barrier needs at least one qubit' });
    }
    const wantParams = spec?.params ?? 0;
    const params: number[] = [];
    const exprs: (ParamExpr | null)[] = [];
    const given = r.params ?? [];
    if (known && given.length !== wantParams) {
      out.push({ path: r.paramsPath, code: 'WRONG_PARAM_COUNT', message: `'${name}' takes ${wantParams} parameter${wantParams === 1 ? '' : 's'}, got ${given.length}` });
    }
    for (const p of given) {
      // With declared parameters, a string naming one is symbolic (the small grammar of param-expr.ts).
      const symbolic = declared.size > 0 && typeof p.value === 'string' ? symbolicParam(p.value, declared) : undefined;
      if (symbolic !== undefined) {
        if ('error' in symbolic) out.push({ path: p.path, ...symbolic.error });
        else {
          params.push(Number.NaN);
          exprs.push(symbolic.expr);
        }
        continue;
      }
      const v = paramValue(p.value, declared);
      if (typeof v !== 'number') out.push({ path: p.path, ...v });
      else if (!Number.isFinite(v)) out.push({ path: p.path, code: 'NON_FINITE_PARAM', message: `parameters must be finite numbers, got ${String(v)}` });
      else {
        params.push(v === 0 ? 0 : v);
        exprs.push(null);
      }
    }
    let clbit: number | undefined;
    if (name === 'measure') {
      if (r.clbits === undefined) {
        out.push({ path: r.clbitsPath, code: 'REQUIRED', message: "a mid-circuit 'measure' needs 'clbits': [c]" });
      } else if (r.clbits.length !== 1) {
        out.push({ path: r.clbitsPath, code: 'WRONG_ARITY', message: `'measure' writes 1 clbit, got ${r.clbits.length}` });
      } else {
        clbit = indexValue(r.clbits[0]!, nc, 'clbit', out);
      }
    } else if (r.clbits !== undefined) {
      out.push({ path: r.clbitsPath, code: 'UNKNOWN_PROPERTY', message: "'clbits' is only allowed on 'measure'" });
    }
    let condition;
    if (r.condition !== undefined) {
      const path = r.conditionPath ?? r.path;
      if (structural) out.push({ path, code: 'CONDITION_INVALID', message: `only a gate can be conditioned, not '${name}'` });
      else condition = readCondition(r.condition, path, nc, out);
    }
    if (out.length > before) continue;
    const q = qs as number[];
    if (name === 'measure') ops.push(measure(q[0]!, clbit!));
    else if (name === 'reset') ops.push(reset(q[0]!));
    else if (name === 'barrier') ops.push(barrier(q));
    else if (condition !== undefined) ops.push(conditioned(symbolicGate(name, q, params, exprs), condition));
    else ops.push(symbolicGate(name, q, params, exprs));
  }
  return ops;
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** A parameter string that uses a declared name: its expression or the problem; undefined when it names none. */
function symbolicParam(text: string, declared: ReadonlySet<string>): { expr: ParamExpr } | { error: { code: CircuitProblemCode; message: string } } | undefined {
  const ids = text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
  if (!ids.some((id) => declared.has(id))) return undefined;
  const r = parseParamExpr(text, declared);
  if (r.ok) return { expr: r.expr };
  return { error: { code: r.error.code, message: `${quote(text)}: ${r.error.message}` } };
}

/** `parameters` of schema 0.2: unique names, not reserved; the well-formed ones (problems go to `out`), or undefined when it is not a list. */
function declaredParameters(obj: Record<string, unknown>, out: Problems): string[] | undefined {
  const list = arrayField(obj, 'parameters', '', false, out);
  if (list === undefined) return obj['parameters'] === undefined ? [] : undefined;
  const names: string[] = [];
  if (list.length > MAX_PARAMETERS) out.push({ path: '/parameters', code: 'TOO_MANY_PARAMETERS', message: `at most ${MAX_PARAMETERS} parameters, got ${list.length}` });
  for (const e of list.slice(0, MAX_PARAMETERS + 1)) {
    if (typeof e.value !== 'string' || !isValidParameterName(e.value)) {
      out.push({ path: e.path, code: 'WRONG_TYPE', message: 'a parameter name is an identifier (letters, digits, _; at most 64) other than pi and the QASM built-in names' });
    } else if (names.includes(e.value)) out.push({ path: e.path, code: 'DUPLICATE_PARAMETER', message: `parameter '${e.value}' is declared twice` });
    else names.push(e.value);
  }
  // The well-formed names stay declared after a problem, so the expressions using them are still
  // checked against them (a duplicate is then the only problem reported, not one per expression).
  return names;
}

/**
 * `registers` (classical, sizes summing to num_clbits) or `quantum_registers` (sizes summing to
 * num_qubits) of schema 0.2: registers in declaration order, laid out over bits 0.. one after another.
 */
function declaredRegisters(
  obj: Record<string, unknown>,
  field: 'registers' | 'quantum_registers',
  total: number | undefined,
  taken: readonly ClassicalRegister[],
  out: Problems,
): ClassicalRegister[] | undefined {
  const list = arrayField(obj, field, '', false, out);
  if (list === undefined) return undefined;
  const regs: ClassicalRegister[] = [];
  const before = out.length;
  for (const e of list.slice(0, MAX_REGISTERS + 1)) {
    const v = e.value;
    if (!isObject(v) || typeof v['name'] !== 'string' || !REGISTER_NAME.test(v['name']) || typeof v['size'] !== 'number' || !Number.isInteger(v['size']) || v['size'] < 1) {
      out.push({ path: e.path, code: 'WRONG_TYPE', message: 'a register is {name, size}: an identifier and a positive integer' });
      continue;
    }
    checkKeys(v, ['name', 'size'], e.path, out);
    // One namespace for both kinds, as in OpenQASM, so that an export declares each name once.
    if (regs.some((r) => r.name === v['name']) || taken.some((r) => r.name === v['name'])) {
      out.push({ path: `${e.path}/name`, code: 'DUPLICATE_PARAMETER', message: `register '${v['name']}' is declared twice` });
    }
    regs.push({ name: v['name'], size: v['size'] });
  }
  if (list.length > MAX_REGISTERS) out.push({ path: `/${field}`, code: 'TOO_MANY_PARAMETERS', message: `at most ${MAX_REGISTERS} registers, got ${list.length}` });
  const sum = regs.reduce((a, r) => a + r.size, 0);
  if (out.length === before && total !== undefined && sum !== total) {
    const what = field === 'registers' ? 'num_clbits' : 'num_qubits';
    out.push({ path: `/${field}`, code: 'REGISTERS_MISMATCH', message: `the register sizes sum to ${sum}, but ${what} is ${total}` });
  }
  return out.length > before ? undefined : regs;
}

function parseV02(obj: Record<string, unknown>, maxGates: number, out: Problems): Circuit | undefined {
  checkKeys(obj, ['schema', 'num_qubits', 'num_clbits', 'parameters', 'quantum_registers', 'registers', 'gates', 'measurements', 'gate_definitions', 'gate_calls', 'metadata'], '', out);
  const nq = sizeField(obj, 'num_qubits', '', 1, undefined, out);
  const nc = sizeField(obj, 'num_clbits', '', 0, 0, out);
  const parameters = declaredParameters(obj, out) ?? [];
  const quantumRegisters = declaredRegisters(obj, 'quantum_registers', nq, [], out);
  const registers = declaredRegisters(obj, 'registers', nc, quantumRegisters ?? [], out);
  const gates = arrayField(obj, 'gates', '', true, out) ?? [];
  const raw: RawOp[] = [];
  for (const g of gates) {
    if (!isObject(g.value)) {
      out.push({ path: g.path, code: 'WRONG_TYPE', message: `a gate must be an object {op, qubits, params?, clbits?, condition?}, got ${typeName(g.value)}` });
      continue;
    }
    checkKeys(g.value, ['op', 'qubits', 'params', 'clbits', 'condition'], g.path, out);
    raw.push({
      path: g.path,
      name: g.value['op'],
      namePath: `${g.path}/op`,
      qubits: arrayField(g.value, 'qubits', g.path, true, out) ?? [],
      qubitsPath: `${g.path}/qubits`,
      params: arrayField(g.value, 'params', g.path, false, out),
      paramsPath: `${g.path}/params`,
      clbits: arrayField(g.value, 'clbits', g.path, false, out),
      clbitsPath: `${g.path}/clbits`,
      condition: g.value['condition'],
      conditionPath: `${g.path}/condition`,
    });
  }
  const measurements = arrayField(obj, 'measurements', '', false, out) ?? [];
  for (const m of measurements) {
    if (!isObject(m.value)) {
      out.push({ path: m.path, code: 'WRONG_TYPE', message: `a measurement must be an object {qubit, clbit}, got ${typeName(m.value)}` });
      continue;
    }
    checkKeys(m.value, ['qubit', 'clbit'], m.path, out);
    let complete = true;
    for (const k of ['qubit', 'clbit']) {
      if (m.value[k] === undefined) {
        out.push({ path: `${m.path}/${k}`, code: 'REQUIRED', message: `'${k}' is required` });
        complete = false;
      }
    }
    if (!complete) continue;
    raw.push({
      path: m.path,
      name: 'measure',
      namePath: m.path,
      qubits: [{ value: m.value['qubit'], path: `${m.path}/qubit` }],
      qubitsPath: `${m.path}/qubit`,
      params: undefined,
      paramsPath: m.path,
      clbits: [{ value: m.value['clbit'], path: `${m.path}/clbit` }],
      clbitsPath: `${m.path}/clbit`,
    });
  }
  const metadata = obj['metadata'] ?? {};
  if (!isObject(metadata)) out.push({ path: '/metadata', code: 'WRONG_TYPE', message: `'metadata' must be an object, got ${typeName(metadata)}` });
  const ops = convertOps(raw, nq, nc, out, new Set(parameters));
  const gateDefinitions = declaredGateDefinitions(obj, out);
  const gateCalls = declaredGateCalls(obj, gateDefinitions ?? [], nq ?? 0, raw.length, maxGates, out);
  if (out.length > 0 || nq === undefined || nc === undefined) return undefined;
  return circuit(nq, nc, ops, metadata as Record<string, unknown>, { parameters, registers, quantumRegisters, gateDefinitions, gateCalls });
}

function parseV01(obj: Record<string, unknown>, out: Problems): Circuit | undefined {
  checkKeys(obj, ['version', 'schema', 'qubits', 'operations', 'metadata'], '', out);
  const nq = sizeField(obj, 'qubits', '', 1, undefined, out);
  const list = arrayField(obj, 'operations', '', true, out) ?? [];
  const raw: RawOp[] = [];
  let anyMeasure = false;
  for (const o of list) {
    if (!isObject(o.value)) {
      out.push({ path: o.path, code: 'WRONG_TYPE', message: `an operation must be an object {gate, targets, controls?, params?}, got ${typeName(o.value)}` });
      continue;
    }
    checkKeys(o.value, ['gate', 'targets', 'controls', 'params'], o.path, out);
    const controls = arrayField(o.value, 'controls', o.path, false, out) ?? [];
    const targets = arrayField(o.value, 'targets', o.path, true, out) ?? [];
    const isMeasure = o.value['gate'] === 'measure';
    anyMeasure ||= isMeasure;
    raw.push({
      path: o.path,
      name: o.value['gate'],
      namePath: `${o.path}/gate`,
      qubits: [...controls, ...targets],
      qubitsPath: `${o.path}/targets`,
      params: arrayField(o.value, 'params', o.path, false, out),
      paramsPath: `${o.path}/params`,
      // 0.1 measures qubit q into clbit q.
      clbits: isMeasure ? targets.map((t) => ({ ...t })) : undefined,
      clbitsPath: `${o.path}/targets`,
    });
  }
  const metadata = obj['metadata'] ?? {};
  if (!isObject(metadata)) out.push({ path: '/metadata', code: 'WRONG_TYPE', message: `'metadata' must be an object, got ${typeName(metadata)}` });
  const nc = anyMeasure ? nq : 0;
  const ops = convertOps(raw, nq, nc, out);
  if (out.length > 0 || nq === undefined || nc === undefined) return undefined;
  return circuit(nq, nc, ops, metadata as Record<string, unknown>);
}

function parseQasmInput(obj: Record<string, unknown>, limits: CircuitLimits, out: Problems, warnings: string[], keepGateDefinitions: boolean): Circuit | undefined {
  checkKeys(obj, ['format', 'source'], '', out);
  const source = obj['source'];
  if (typeof source !== 'string') {
    out.push({ path: '/source', code: source === undefined ? 'REQUIRED' : 'WRONG_TYPE', message: "'source' must be the OpenQASM program text" });
    return undefined;
  }
  if (out.length > 0) return undefined;
  try {
    return parseQasm(source, { maxQubits: limits.maxQubits, maxOps: limits.maxGates, warnings, keepGateDefinitions });
  } catch (e) {
    const details = (e as { details?: unknown }).details;
    if (!Array.isArray(details)) throw e;
    for (const d of details as CircuitProblem[]) out.push(d);
    return undefined;
  }
}

/** Classical bits allowed per allowed qubit (the OpenQASM importer uses the same bound). */
const MAX_CLBITS_PER_QUBIT = 4;

/**
 * Deployment limits. For JSON input the qubit and gate limits are checked on the raw
 * input, so they are reported together with any other problem; depth needs a valid circuit.
 */
function checkLimits(input: Record<string, unknown>, c: Circuit | undefined, limits: CircuitLimits, format: InputFormat, out: Problems): void {
  let qubits: unknown;
  let clbits: unknown;
  let count: number | undefined;
  let qubitsPath = '/source';
  let opsPath = '/source';
  if (format === 'json-0.2') {
    qubits = input['num_qubits'];
    clbits = input['num_clbits'];
    const g = input['gates'];
    const m = input['measurements'];
    count = (Array.isArray(g) ? g.length : 0) + (Array.isArray(m) ? m.length : 0);
    qubitsPath = '/num_qubits';
    opsPath = '/gates';
  } else if (format === 'json-0.1') {
    qubits = input['qubits'];
    const o = input['operations'];
    count = Array.isArray(o) ? o.length : 0;
    qubitsPath = '/qubits';
    opsPath = '/operations';
  } else if (c !== undefined) {
    qubits = c.numQubits;
    count = c.ops.length;
  }
  if (typeof qubits === 'number' && qubits > limits.maxQubits) {
    out.push({ path: qubitsPath, code: 'TOO_MANY_QUBITS', message: `${qubits} qubits is above this deployment's limit of ${limits.maxQubits}` });
  }
  // The same classical-bit bound as the OpenQASM importer (parse-qasm.ts), so neither input
  // form can declare millions of clbits that downstream consumers allocate by.
  if (typeof clbits === 'number' && clbits > MAX_CLBITS_PER_QUBIT * limits.maxQubits) {
    out.push({
      path: '/num_clbits',
      code: 'TOO_MANY_QUBITS',
      message: `${clbits} classical bits is above this deployment's limit of ${MAX_CLBITS_PER_QUBIT * limits.maxQubits} (${MAX_CLBITS_PER_QUBIT} per allowed qubit)`,
    });
  }
  if (count !== undefined && count > limits.maxGates) {
    out.push({ path: opsPath, code: 'TOO_MANY_GATES', message: `${count} operations is above this deployment's limit of ${limits.maxGates}` });
  }
  // Only a circuit within every other limit: depth allocates per wire, and the sizes are now known to be bounded.
  if (c !== undefined && out.length === 0) {
    const depth = circuitDepth(c);
    if (depth > limits.maxDepth) {
      out.push({ path: opsPath, code: 'TOO_DEEP', message: `depth ${depth} is above this deployment's limit of ${limits.maxDepth}` });
    }
  }
}

/** Parses any accepted circuit input; reports every problem found, never only the first. */
export interface ParseOptions {
  /**
   * Whether a circuit with symbolic parameters is accepted. Off by default: a consumer that
   * needs numbers (analysis, coupling, a plain simulation) gets PARAMETERS_UNBOUND instead of
   * placeholders; the ones that bind or keep them (validate, optimize, execute) allow them.
   */
  readonly allowParameters?: boolean;
  /** OpenQASM input: keep user gate definitions and calls (asked for by `output: {inline_gates: false}`). */
  readonly keepGateDefinitions?: boolean;
}

export function parseCircuitInput(input: unknown, limits: CircuitLimits = DEFAULT_CIRCUIT_LIMITS, options: ParseOptions = {}): ParseCircuitResult {
  const out: Problems = new BoundedProblems();
  let truncated = false;
  const bounded = (parse: () => Circuit | undefined): Circuit | undefined => {
    try {
      return parse();
    } catch (e) {
      if (e !== PROBLEM_LIMIT) throw e;
      truncated = true;
      return undefined;
    }
  };
  if (!isObject(input)) {
    return { ok: false, errors: [{ path: '', code: 'WRONG_TYPE', message: `a circuit must be a JSON object, got ${typeName(input)}` }] };
  }
  // Before any recursive or storing consumer sees the input (see scan-circuit-input.ts).
  const shape = scanCircuitInput(input);
  if (shape.length > 0) return { ok: false, errors: shape };
  let format: InputFormat;
  let c: Circuit | undefined;
  const warnings: string[] = [];
  if ('format' in input) {
    const f = input['format'];
    if (f !== 'qasm2' && f !== 'qasm3') {
      return { ok: false, errors: [{ path: '/format', code: 'UNKNOWN_FORMAT', message: `unknown format ${JSON.stringify(f)}: use "qasm2" or "qasm3" (or a JSON circuit with "schema":"0.2")` }] };
    }
    format = f;
    c = bounded(() => parseQasmInput(input, limits, out, warnings, options.keepGateDefinitions === true));
  } else if ('schema' in input || 'version' in input) {
    const key = 'schema' in input ? 'schema' : 'version';
    const v = input[key];
    if (v === '0.2' && key === 'schema') {
      format = 'json-0.2';
      c = bounded(() => parseV02(input, limits.maxGates, out));
    } else if (v === '0.1') {
      format = 'json-0.1';
      warnings.push(DEPRECATION_WARNING_V01);
      c = bounded(() => parseV01(input, out));
    } else {
      return { ok: false, errors: [{ path: `/${key}`, code: 'UNKNOWN_SCHEMA_VERSION', message: `unknown ${key} ${JSON.stringify(v)}: the current schema is "0.2" (legacy "0.1" is accepted)` }] };
    }
  } else {
    return { ok: false, errors: [{ path: '/schema', code: 'REQUIRED', message: 'a circuit needs "schema": "0.2" (or "format": "qasm2"/"qasm3" with "source")' }] };
  }
  // Limits are reported even when the parse stopped at the problem cap: they are usually the cause.
  const limitProblems: Problems = [];
  checkLimits(input, c, limits, format, limitProblems);
  const all = [...out, ...limitProblems];
  if (truncated) {
    all.push({ path: '', code: 'TOO_MANY_PROBLEMS', message: `more than ${MAX_CIRCUIT_PROBLEMS} problems: the first ones are reported, the rest were not checked` });
  }
  if (all.length > 0 || c === undefined) return { ok: false, errors: dedupe(all) };
  if (options.allowParameters !== true && c.parameters !== undefined) {
    return {
      ok: false,
      errors: [
        {
          path: format === 'json-0.2' ? '/parameters' : '/source',
          code: 'PARAMETERS_UNBOUND',
          message: `the circuit has symbolic parameters (${c.parameters.join(', ')}); this operation needs numbers: bind them (parameter_values on an execution run) or substitute values`,
        },
      ],
    };
  }
  return { ok: true, circuit: c, warnings, format };
}

/** For routes that take a circuit: the circuit, or a 400 CIRCUIT_INVALID listing every problem. */
export function requireCircuit(input: unknown, limits: CircuitLimits = DEFAULT_CIRCUIT_LIMITS, pathPrefix = '/circuit', options: ParseOptions = {}): { circuit: Circuit; warnings: string[] } {
  const r = parseCircuitInput(input, limits, options);
  if (r.ok) return { circuit: r.circuit, warnings: r.warnings };
  const details = prefixProblems(r.errors, pathPrefix);
  throw fail(CIRCUITS_ERRORS.CIRCUIT_INVALID, `The circuit is not valid (${r.errors.length} problem${r.errors.length === 1 ? '' : 's'}): ${r.errors[0]!.message}`, details);
}

function dedupe(problems: Problems): Problems {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function prefixProblems(problems: readonly CircuitProblem[], pathPrefix: string): CircuitProblem[] {
  return problems.map((p) => ({ ...p, path: pathPrefix + p.path }));
}

/**
 * Normalized wire format 0.2: the trailing run of measurements becomes `measurements`,
 * every other operation stays in `gates` in order; `params` only on parameterised gates,
 * `clbits` only on mid-circuit measurements, `condition` only on conditioned gates.
 */
export function toWire(c: Circuit): WireCircuitV02 {
  let cut = c.ops.length;
  while (cut > 0 && c.ops[cut - 1]!.kind === 'measure') cut--;
  const gates: WireGate[] = c.ops.slice(0, cut).map((op): WireGate => {
    switch (op.kind) {
      case 'gate':
        return wireGate(op);
      case 'measure':
        return { op: 'measure', qubits: [op.qubit], clbits: [op.clbit] };
      case 'reset':
        return { op: 'reset', qubits: [op.qubit] };
      case 'barrier':
        return { op: 'barrier', qubits: [...op.qubits] };
      case 'conditioned':
        // A value above 2^53 − 1 (a bigint) goes out as a decimal string, as it comes in.
        return { ...wireGate(op.gate), condition: { clbits: [...op.condition.clbits], value: typeof op.condition.value === 'bigint' ? op.condition.value.toString() : op.condition.value } };
    }
  });
  const measurements = c.ops.slice(cut).map((op) => (op.kind === 'measure' ? { qubit: op.qubit, clbit: op.clbit } : { qubit: 0, clbit: 0 }));
  return {
    schema: '0.2',
    num_qubits: c.numQubits,
    num_clbits: c.numClbits,
    ...(c.parameters === undefined ? {} : { parameters: [...c.parameters] }),
    ...(c.quantumRegisters === undefined ? {} : { quantum_registers: c.quantumRegisters.map((r) => ({ name: r.name, size: r.size })) }),
    ...(c.registers === undefined ? {} : { registers: c.registers.map((r) => ({ name: r.name, size: r.size })) }),
    gates,
    measurements,
    ...gateDefinitionsWire(c),
    metadata: { ...c.metadata },
  };
}

function wireGate(op: GateOp): WireGate {
  const exprs = op.exprs;
  const params = exprs === undefined ? [...op.params] : op.params.map((p, i) => (exprs[i] === null || exprs[i] === undefined ? p : formatParamExpr(exprs[i])));
  return op.params.length > 0 ? { op: op.name, qubits: [...op.qubits], params } : { op: op.name, qubits: [...op.qubits] };
}

function gateDefinitionsWire(c: Circuit): Pick<WireCircuitV02, 'gate_definitions' | 'gate_calls'> {
  if (c.gateDefinitions === undefined) return {};
  const gate_definitions = c.gateDefinitions.map((d) => ({ name: d.name, ...(d.params.length > 0 ? { params: [...d.params] } : {}), qubits: [...d.qubits], body: d.body }));
  const calls = c.gateCalls ?? [];
  if (calls.length === 0) return { gate_definitions };
  return { gate_definitions, gate_calls: calls.map((k) => ({ gate: k.name, ...(k.params.length > 0 ? { params: [...k.params] } : {}), qubits: [...k.qubits], start: k.start, count: k.count })) };
}
