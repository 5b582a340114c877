/**
 * OpenQASM 2.0 and 3.0 import into the circuit IR (one parser for both; the version line
 * only selects nothing but is checked). Covers qelib1.inc (original and extended lists),
 * stdgates.inc, register declarations of both versions (several registers are laid out in
 * declaration order; their names are kept for export), register broadcasting, user `gate` definitions
 * (inlined; with keepGateDefinitions also recorded with their top-level calls, see gate-calls.ts),
 * `ctrl @`/`inv @` modifiers that land on catalogue gates, expressions with pi, comments,
 * `if` on measured bits (conditioned gates) and `for` over constant ranges (unrolled), see
 * control-flow.ts. Other classical control, subroutines and timing are reported as unsupported.
 * Every failure is an AppError QASM_PARSE_ERROR with line and column (see lexer.ts).
 */
import {
  barrier,
  circuit,
  conditioned,
  gate,
  MAX_REGISTERS,
  measure,
  REGISTER_NAME,
  reset,
  symbolicGate,
  type Circuit,
  type Condition,
  type GateCall,
  type GateDefinition,
  type Operation,
} from '../ir.js';
import { combinedCondition, forStatement, ifStatement, type FlowParser } from './control-flow.js';
import { bodyText, MAX_GATE_DEFINITIONS } from './gate-definition-text.js';
import { isValidParameterName, MAX_PARAMETERS, type ParamExpr } from '../param-expr.js';
import { gateSpec } from '../gates.js';
import { evalExpr, exprSize, parseExpr, type Expr, type TokenCursor } from './expr.js';
import { applyCtrl, applyInv, QASM_ALIASES } from './gate-modifiers.js';
import { qasmError, tokenize, type Token } from './lexer.js';
import { c3sqrtxBodyWarning } from './c3sqrtx-body.js';

export interface QasmParseOptions {
  /** Registers adding up to more qubits are rejected early (TOO_MANY_QUBITS). */
  readonly maxQubits?: number;
  /** Stops expansion (broadcasts, inlined gates) beyond this many operations (TOO_MANY_GATES). */
  readonly maxOps?: number;
  /** Collects warnings about the program (e.g. a c3sqrtx body that is not the catalogue gate). */
  readonly warnings?: string[];
  /** Records user gate definitions and their top-level calls in the circuit (export with `inline_gates: false`). */
  readonly keepGateDefinitions?: boolean;
}

const DEFAULT_MAX_QUBITS = 1 << 20;
const DEFAULT_MAX_OPS = 5_000_000;
/** User-gate calls allowed per allowed operation (wrapper chains make several calls per emitted op). */
const EXPANSIONS_PER_OP = 8;
/**
 * Expression nodes evaluated per allowed operation. Each inlined call re-evaluates its parameter
 * expressions, so a 21 KB program (100 parameters of 200 nodes, called 800 000 times through
 * nested definitions) took 96 s of synchronous CPU within the call bound above.
 */
const EVAL_NODES_PER_OP = 64;

type Modifier = { readonly kind: 'ctrl' | 'inv'; readonly n: number; readonly tok: Token };
interface Arg {
  readonly name: string;
  readonly index: number | undefined;
  readonly tok: Token;
}
type BodyStmt =
  | { readonly kind: 'call'; readonly name: Token; readonly mods: readonly Modifier[]; readonly params: readonly Expr[]; readonly paramNodes: number; readonly args: readonly Arg[] }
  | { readonly kind: 'barrier'; readonly args: readonly Arg[] };
interface UserGate {
  readonly params: readonly string[];
  readonly qargs: readonly string[];
  readonly body: readonly BodyStmt[];
}
interface Register {
  readonly offset: number;
  readonly size: number;
  /** `qubit q;` / `bit c;` (no brackets) name one bit, not a register of one. */
  readonly scalar: boolean;
}

const UNSUPPORTED = new Set([
  'while',
  'def',
  'return',
  'const',
  'output',
  'let',
  'box',
  'delay',
  'cal',
  'defcal',
  'defcalgrammar',
  'extern',
  'switch',
  'break',
  'continue',
  'int',
  'uint',
  'float',
  'angle',
  'bool',
  'complex',
  'duration',
  'stretch',
  'array',
  'negctrl',
  'pow',
  'end',
]);

/** Statements that declare something: only at the top level, never inside an `if` or `for` body. */
const DECLARATIONS = new Set(['OPENQASM', 'include', 'qreg', 'creg', 'qubit', 'bit', 'gate', 'input', 'opaque']);

class Parser implements TokenCursor, FlowParser {
  pos = 0;
  readonly loopEnv = new Map<string, number>();
  readonly conditions: Condition[] = [];
  loopProduct = 1;
  replayed = 0;
  blockDepth = 0;
  private readonly qregs = new Map<string, Register>();
  private readonly cregs = new Map<string, Register>();
  private readonly userGates = new Map<string, UserGate>();
  private readonly opaque = new Set<string>();
  private numQubits = 0;
  private numClbits = 0;
  private readonly ops: Operation[] = [];
  /** `input angle[..] theta;` / `input float[..] theta;` declarations: the circuit's symbolic parameters, in order. */
  private readonly inputs: string[] = [];
  /** User-gate calls inlined so far: bounded like the ops, since gates with empty bodies emit nothing. */
  private expansions = 0;
  /** Expression nodes evaluated so far (see EVAL_NODES_PER_OP). */
  private evaluated = 0;
  readonly warnings: string[] = [];
  /** With keepGateDefinitions: the user definitions and the top-level calls (undefined: not recorded). */
  private readonly definitions: GateDefinition[] | undefined;
  private readonly calls: GateCall[] = [];

  constructor(
    private readonly tokens: readonly Token[],
    private readonly maxQubits: number,
    readonly maxOps: number,
    keepGateDefinitions = false,
  ) {
    this.definitions = keepGateDefinitions ? [] : undefined;
  }

  peek(k = 0): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)]!;
  }
  next(): Token {
    const t = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }
  accept(text: string): boolean {
    const t = this.peek();
    if (t.type !== 'str' && t.text === text) {
      this.pos++;
      return true;
    }
    return false;
  }
  expect(text: string): Token {
    const t = this.peek();
    if (t.type === 'str' || t.text !== text) throw qasmError('QASM_SYNTAX_ERROR', `expected '${text}', found '${t.text}'`, t);
    return this.next();
  }
  private expectId(what: string): Token {
    const t = this.next();
    if (t.type !== 'id') throw qasmError('QASM_SYNTAX_ERROR', `expected ${what}, found '${t.text}'`, t);
    return t;
  }
  private expectInt(what: string): number {
    const t = this.next();
    if (t.type !== 'num' || !/^[0-9]+$/.test(t.text)) throw qasmError('QASM_SYNTAX_ERROR', `expected ${what} (an integer), found '${t.text}'`, t);
    return Number(t.text);
  }

  parse(): Circuit {
    if (this.peek().text === 'OPENQASM') {
      const t = this.next();
      const v = this.next();
      if (v.type !== 'num' || !/^[23](\.[0-9]+)?$/.test(v.text)) {
        throw qasmError('QASM_UNSUPPORTED', `unsupported OpenQASM version '${v.text}' (2.x and 3.x are)`, v.type === 'eof' ? t : v);
      }
      this.expect(';');
    }
    while (this.peek().type !== 'eof') this.statement();
    // The same smallest circuit as the JSON formats (num_qubits >= 1): every consumer
    // (optimizer, coupling, simulator, devices) may assume at least one wire.
    if (this.numQubits === 0) {
      throw qasmError('TOO_SMALL', 'the program declares no qubits; a circuit needs at least one (e.g. qreg q[1]; or qubit[1] q;)', this.peek());
    }
    const registers = [...this.cregs].map(([name, r]) => ({ name, size: r.size }));
    return circuit(
      this.numQubits,
      this.numClbits,
      this.ops,
      {},
      {
        parameters: this.inputs,
        registers,
        quantumRegisters: this.quantumLayout(),
        gateDefinitions: this.definitions,
        gateCalls: this.calls,
      },
    );
  }

  /**
   * The quantum registers as declared, for export (a scalar `qubit a;` is a register of one: the same
   * qubit). Names the wire format cannot carry (non-ASCII, over 64 characters) give the default layout.
   */
  private quantumLayout(): { name: string; size: number }[] {
    const regs = [...this.qregs].map(([name, r]) => ({ name, size: r.size }));
    return regs.every((r) => REGISTER_NAME.test(r.name)) ? regs : [];
  }

  /** `input angle[32] theta;`, `input angle theta;`, `input float[64] theta;`: a symbolic parameter. */
  private inputDeclaration(): void {
    this.next();
    const type = this.expectId('an input type');
    if (type.text !== 'angle' && type.text !== 'float') {
      throw qasmError('QASM_UNSUPPORTED', `input of type '${type.text}' is not supported (angle and float inputs are: they become circuit parameters)`, type);
    }
    if (this.accept('[')) {
      this.expectInt('a width');
      this.expect(']');
    }
    const name = this.expectId('an input name');
    this.expect(';');
    if (!isValidParameterName(name.text)) throw qasmError('QASM_SYNTAX_ERROR', `'${name.text}' cannot name an input parameter`, name);
    if (this.inputs.includes(name.text) || this.qregs.has(name.text) || this.cregs.has(name.text)) throw qasmError('QASM_SYNTAX_ERROR', `'${name.text}' is already declared`, name);
    if (this.inputs.length >= MAX_PARAMETERS) throw qasmError('QASM_UNSUPPORTED', `at most ${MAX_PARAMETERS} input parameters`, name);
    this.inputs.push(name.text);
  }

  /** The symbolic form of a gate argument that uses an input; null when it uses none (then it is a number). */
  private symbolic(e: Expr): ParamExpr | null {
    const uses = (x: Expr): boolean =>
      x.kind === 'var' ? this.inputs.includes(x.name) : x.kind === 'neg' || x.kind === 'call' ? uses(x.arg) : x.kind === 'bin' ? uses(x.left) || uses(x.right) : false;
    if (!uses(e)) return null;
    const structural = (x: Expr): ParamExpr | null => {
      if (x.kind === 'num') return { k: 'num', v: x.value };
      if (x.kind === 'var') return x.name === 'pi' || x.name === 'π' ? { k: 'pi' } : null;
      if (x.kind === 'neg') {
        const a = structural(x.arg);
        return a === null ? null : { k: 'neg', a };
      }
      if (x.kind === 'bin' && x.op !== '^') {
        const a = structural(x.left);
        const b = structural(x.right);
        return a === null || b === null ? null : { k: 'bin', op: x.op, a, b };
      }
      return null;
    };
    const conv = (x: Expr): ParamExpr => {
      // Constant parts keep their spelling (pi/4 stays pi/4) when the small grammar has it; others become numbers.
      if (!uses(x)) return structural(x) ?? { k: 'num', v: evalExpr(x, this.loopEnv) };
      switch (x.kind) {
        case 'var':
          return { k: 'name', name: x.name };
        case 'neg':
          return { k: 'neg', a: conv(x.arg) };
        case 'bin':
          if (x.op === '^') throw qasmError('QASM_UNSUPPORTED', 'an input parameter may be used with + - * / only (not ^)', x.tok);
          return { k: 'bin', op: x.op, a: conv(x.left), b: conv(x.right) };
        case 'call':
          throw qasmError('QASM_UNSUPPORTED', `an input parameter may be used with + - * / only (not ${x.fn})`, x.tok);
        default:
          return { k: 'num', v: evalExpr(x, this.loopEnv) };
      }
    };
    return conv(e);
  }

  statement(): void {
    const t = this.peek();
    if (t.type === 'punct' && t.text === ';') {
      this.next();
      return;
    }
    if (t.type !== 'id') throw qasmError('QASM_SYNTAX_ERROR', `expected a statement, found '${t.text}'`, t);
    if (this.blockDepth > 0 && DECLARATIONS.has(t.text)) {
      throw qasmError('QASM_UNSUPPORTED', `'${t.text}' inside an if or for body is not supported: declare registers, gates and inputs at the top level`, t);
    }
    switch (t.text) {
      case 'if':
        return ifStatement(this);
      case 'for':
        return forStatement(this);
      case 'else':
        throw qasmError('QASM_SYNTAX_ERROR', "'else' without an 'if'", t);
      case 'OPENQASM':
        throw qasmError('QASM_SYNTAX_ERROR', 'the OPENQASM version line must come first', t);
      case 'include':
        return this.include();
      case 'qreg':
      case 'creg':
        return this.oldRegister(t.text === 'qreg');
      case 'qubit':
      case 'bit':
        return this.newRegister(t.text === 'qubit');
      case 'gate':
        return this.gateDefinition();
      case 'input':
        return this.inputDeclaration();
      case 'opaque':
        return this.opaqueDeclaration();
      case 'measure':
        return this.measureArrow();
      case 'reset': {
        this.next();
        const args = this.argList();
        this.expect(';');
        for (const q of this.broadcastSingle(args)) this.emit(reset(q), t);
        return;
      }
      case 'barrier': {
        this.next();
        const args = this.peek().text === ';' ? [] : this.argList();
        this.expect(';');
        const qs = args.length === 0 ? range(this.numQubits) : args.flatMap((a) => this.resolveQubits(a));
        this.emit(barrier([...new Set(qs)]), t);
        return;
      }
      case 'gphase':
        // A global phase: circuits are equal up to global phase, so it is dropped.
        this.next();
        this.skipTo(';');
        return;
      default:
        break;
    }
    if (UNSUPPORTED.has(t.text) || t.text.startsWith('$')) {
      throw qasmError(
        'QASM_UNSUPPORTED',
        `'${t.text}' is not supported by qrail's OpenQASM import (of classical control only if on measured bits and for over constant ranges; no subroutines, timing or physical qubits)`,
        t,
      );
    }
    // `c[0] = measure q[0];` / `c = measure q;` / `c[i+1] = measure q[i];` (OpenQASM 3)
    if (this.cregs.has(t.text) && this.assignsMeasure()) {
      const target = this.arg();
      this.expect('=');
      this.expect('measure');
      const source = this.arg();
      this.expect(';');
      this.emitMeasures(source, target, t);
      return;
    }
    this.gateCall();
  }

  /** Whether the statement at the cursor is `name = …` or `name[…] = …`. */
  private assignsMeasure(): boolean {
    if (this.peek(1).text === '=') return true;
    if (this.peek(1).text !== '[') return false;
    for (let k = 2; ; k++) {
      const x = this.peek(k);
      if (x.type === 'eof' || x.text === ';') return false;
      if (x.text === ']') return this.peek(k + 1).text === '=';
    }
  }

  clbitsOf(name: Token, index: number | undefined): { clbits: number[]; single: boolean } {
    const reg = this.cregs.get(name.text);
    if (reg === undefined) {
      throw qasmError('QASM_UNDEFINED', this.qregs.has(name.text) ? `'${name.text}' is not a classical register` : `unknown classical register '${name.text}'`, name);
    }
    if (index === undefined) return { clbits: range(reg.size).map((i) => reg.offset + i), single: reg.size === 1 };
    if (reg.scalar || index >= reg.size) throw qasmError('CLBIT_OUT_OF_RANGE', `index ${index} is out of range for '${name.text}' of size ${reg.size}`, name);
    return { clbits: [reg.offset + index], single: true };
  }

  isDeclared(name: string): boolean {
    return this.qregs.has(name) || this.cregs.has(name) || this.inputs.includes(name);
  }

  private include(): void {
    this.next();
    const f = this.next();
    if (f.type !== 'str') throw qasmError('QASM_SYNTAX_ERROR', `expected a file name string, found '${f.text}'`, f);
    if (f.text !== 'qelib1.inc' && f.text !== 'stdgates.inc') {
      throw qasmError('QASM_UNSUPPORTED', `cannot include '${f.text}': only qelib1.inc and stdgates.inc are known (inline your gate definitions)`, f);
    }
    this.expect(';');
  }

  private declare(name: Token, size: number, quantum: boolean, scalar: boolean): void {
    if (this.qregs.has(name.text) || this.cregs.has(name.text)) {
      throw qasmError('QASM_SYNTAX_ERROR', `register '${name.text}' is already declared`, name);
    }
    if (size < 1 && !scalar) throw qasmError('QASM_SYNTAX_ERROR', `register '${name.text}' must have at least one bit`, name);
    if ((quantum ? this.qregs : this.cregs).size >= MAX_REGISTERS) {
      throw qasmError('TOO_MANY_PARAMETERS', `at most ${MAX_REGISTERS} ${quantum ? 'quantum' : 'classical'} registers`, name);
    }
    if (quantum) {
      if (this.numQubits + size > this.maxQubits) {
        throw qasmError('TOO_MANY_QUBITS', `the registers declare more than ${this.maxQubits} qubits`, name);
      }
      this.qregs.set(name.text, { offset: this.numQubits, size, scalar });
      this.numQubits += size;
    } else {
      if (this.numClbits + size > this.maxQubits * 4) {
        throw qasmError('TOO_MANY_QUBITS', `the registers declare more than ${this.maxQubits * 4} classical bits`, name);
      }
      this.cregs.set(name.text, { offset: this.numClbits, size, scalar });
      this.numClbits += size;
    }
  }

  private oldRegister(quantum: boolean): void {
    this.next();
    const name = this.expectId('a register name');
    this.expect('[');
    const size = this.expectInt('a register size');
    this.expect(']');
    this.expect(';');
    this.declare(name, size, quantum, false);
  }

  private newRegister(quantum: boolean): void {
    this.next();
    let size = 1;
    let scalar = true;
    if (this.accept('[')) {
      size = this.expectInt('a register size');
      this.expect(']');
      scalar = false;
    }
    const name = this.expectId('a register name');
    if (this.peek().text === '=') throw qasmError('QASM_UNSUPPORTED', 'initialised classical declarations are not supported', this.peek());
    this.expect(';');
    this.declare(name, size, quantum, scalar);
  }

  private idList(close: string): string[] {
    // A set for the duplicate check: `names.includes` made a 400 KB list of 60 000 names take 7 s.
    const names = new Set<string>();
    if (this.peek().text === close) return [];
    do {
      const id = this.expectId('a name');
      if (names.has(id.text)) throw qasmError('QASM_SYNTAX_ERROR', `'${id.text}' is listed twice`, id);
      names.add(id.text);
    } while (this.accept(','));
    return [...names];
  }

  private gateDefinition(): void {
    this.next();
    const name = this.expectId('a gate name');
    let params: string[] = [];
    if (this.accept('(')) {
      params = this.idList(')');
      this.expect(')');
    }
    const qargs = this.idList('{');
    const qargSet = new Set(qargs);
    if (qargs.length === 0) throw qasmError('QASM_SYNTAX_ERROR', `gate '${name.text}' needs at least one qubit argument`, name);
    this.expect('{');
    const bodyStart = this.pos;
    const body: BodyStmt[] = [];
    while (!this.accept('}')) {
      const t = this.peek();
      if (t.type === 'eof') throw qasmError('QASM_SYNTAX_ERROR', `gate '${name.text}' is not closed with '}'`, t);
      if (t.text === ';') {
        this.next();
      } else if (t.text === 'barrier') {
        this.next();
        const args = this.argList();
        this.expect(';');
        body.push({ kind: 'barrier', args });
      } else if (t.text === 'gphase') {
        this.next();
        this.skipTo(';');
      } else {
        if (t.type !== 'id') throw qasmError('QASM_SYNTAX_ERROR', `expected a gate call in the body of '${name.text}', found '${t.text}'`, t);
        const mods = this.modifiers();
        const callee = this.expectId('a gate name');
        const ps = this.paramList();
        const args = this.argList();
        this.expect(';');
        for (const a of args) {
          if (a.index !== undefined || !qargSet.has(a.name)) {
            throw qasmError('QASM_UNDEFINED', `'${a.name}' is not a qubit argument of gate '${name.text}'`, a.tok);
          }
        }
        body.push({ kind: 'call', name: callee, mods, params: ps, paramNodes: ps.reduce((n, p) => n + exprSize(p), 0), args });
      }
    }
    const canonical = QASM_ALIASES[name.text] ?? name.text;
    const std = gateSpec(canonical);
    if (std !== undefined) {
      // A definition of a catalogue gate (as exporters write for gates outside the include
      // files) declares that gate: the catalogue's semantics are kept, the body is not inlined.
      if (std.arity !== qargs.length || std.params !== params.length) {
        throw qasmError(
          'QASM_SYNTAX_ERROR',
          `gate '${name.text}' redefines the standard gate with ${params.length} parameters and ${qargs.length} qubits (expected ${std.params} and ${std.arity})`,
          name,
        );
      }
      if (canonical === 'c3sqrtx' && body.every((b) => b.kind === 'call' && b.mods.length === 0)) {
        try {
          const calls = body.map((b) =>
            b.kind === 'call'
              ? { name: QASM_ALIASES[b.name.text] ?? b.name.text, params: b.params.map((p) => evalExpr(p, EMPTY_ENV)), args: b.args.map((a) => qargs.indexOf(a.name)) }
              : { name: '', params: [], args: [] },
          );
          const w = c3sqrtxBodyWarning(calls);
          if (w) this.warnings.push(w);
        } catch {
          // a body this check cannot evaluate claims nothing: the catalogue meaning is used, silently as before
        }
      }
      return;
    }
    if (this.userGates.has(name.text)) throw qasmError('QASM_SYNTAX_ERROR', `gate '${name.text}' is already defined`, name);
    this.userGates.set(name.text, { params, qargs, body });
    if (this.definitions !== undefined) {
      if (this.definitions.length >= MAX_GATE_DEFINITIONS) throw qasmError('TOO_MANY_DEFINITIONS', `at most ${MAX_GATE_DEFINITIONS} gate definitions are kept (or send inline_gates: true)`, name);
      this.definitions.push({ name: name.text, params, qubits: qargs, body: bodyText(this.tokens.slice(bodyStart, this.pos - 1)) });
    }
  }

  private opaqueDeclaration(): void {
    this.next();
    const name = this.expectId('a gate name');
    this.skipTo(';');
    if (gateSpec(QASM_ALIASES[name.text] ?? name.text) === undefined) this.opaque.add(name.text);
  }

  private skipTo(text: string): void {
    while (!this.accept(text)) {
      if (this.peek().type === 'eof') throw qasmError('QASM_SYNTAX_ERROR', `expected '${text}'`, this.peek());
      this.next();
    }
  }

  private modifiers(): Modifier[] {
    const mods: Modifier[] = [];
    for (;;) {
      const t = this.peek();
      if (t.type !== 'id' || (t.text !== 'ctrl' && t.text !== 'inv' && t.text !== 'negctrl' && t.text !== 'pow')) return mods;
      if (t.text === 'negctrl' || t.text === 'pow') {
        throw qasmError('QASM_UNSUPPORTED', `the '${t.text}' modifier is not supported`, t);
      }
      this.next();
      let n = 1;
      if (t.text === 'ctrl' && this.accept('(')) {
        n = this.expectInt('a number of controls');
        this.expect(')');
      }
      this.expect('@');
      mods.push({ kind: t.text === 'inv' ? 'inv' : 'ctrl', n, tok: t });
    }
  }

  private paramList(): Expr[] {
    const ps: Expr[] = [];
    if (!this.accept('(')) return ps;
    if (this.accept(')')) return ps;
    do ps.push(parseExpr(this));
    while (this.accept(','));
    this.expect(')');
    return ps;
  }

  private arg(): Arg {
    const tok = this.expectId('a qubit or bit');
    if (this.accept('[')) {
      const at = this.peek();
      let index: number;
      if (at.type === 'num' && this.peek(1).text === ']') index = this.expectInt('an index');
      else {
        // an expression: of loop variables (`q[i+1]`) or constants
        const v = evalExpr(parseExpr(this), this.loopEnv);
        if (!Number.isSafeInteger(v) || v < 0) throw qasmError('QASM_SYNTAX_ERROR', `an index must be a non-negative integer, got ${v}`, at);
        index = v;
      }
      this.expect(']');
      return { name: tok.text, index, tok };
    }
    return { name: tok.text, index: undefined, tok };
  }

  private argList(): Arg[] {
    const args: Arg[] = [this.arg()];
    while (this.accept(',')) args.push(this.arg());
    return args;
  }

  private resolve(a: Arg, quantum: boolean): number[] {
    const reg = (quantum ? this.qregs : this.cregs).get(a.name);
    if (reg === undefined) {
      const other = (quantum ? this.cregs : this.qregs).has(a.name);
      const what = quantum ? 'quantum register' : 'classical register';
      throw qasmError('QASM_UNDEFINED', other ? `'${a.name}' is not a ${what}` : `unknown ${what} '${a.name}'`, a.tok);
    }
    if (a.index === undefined) return range(reg.size).map((i) => reg.offset + i);
    if (reg.scalar || a.index >= reg.size) {
      throw qasmError(quantum ? 'QUBIT_OUT_OF_RANGE' : 'CLBIT_OUT_OF_RANGE', `index ${a.index} is out of range for '${a.name}' of size ${reg.size}`, a.tok);
    }
    return [reg.offset + a.index];
  }
  private resolveQubits(a: Arg): number[] {
    return this.resolve(a, true);
  }

  /** Register broadcasting (OpenQASM 2 §3.1): registers pair up element-wise; single qubits repeat. */
  private broadcast(args: readonly Arg[], quantum: readonly boolean[]): number[][] {
    const lists = args.map((a, i) => this.resolve(a, quantum[i] ?? true));
    let n = 1;
    let seen = false;
    for (let i = 0; i < lists.length; i++) {
      const a = args[i]!;
      if (a.index !== undefined || this.isScalar(a, quantum[i] ?? true)) continue;
      const len = lists[i]!.length;
      if (seen && len !== n) throw qasmError('QASM_SYNTAX_ERROR', `registers of different sizes (${n} and ${len}) in one statement`, a.tok);
      n = len;
      seen = true;
    }
    const rows: number[][] = [];
    for (let k = 0; k < n; k++) rows.push(lists.map((l) => (l.length === 1 ? l[0]! : l[k]!)));
    return rows;
  }
  private isScalar(a: Arg, quantum: boolean): boolean {
    return (quantum ? this.qregs : this.cregs).get(a.name)?.scalar === true;
  }
  private broadcastSingle(args: readonly Arg[]): number[] {
    return args.flatMap((a) => this.resolveQubits(a));
  }

  private measureArrow(): void {
    const t = this.next();
    const source = this.arg();
    this.expect('->');
    const target = this.arg();
    this.expect(';');
    this.emitMeasures(source, target, t);
  }

  private emitMeasures(source: Arg, target: Arg, at: Token): void {
    for (const [q, c] of this.broadcast([source, target], [true, false])) this.emit(measure(q!, c!), at);
  }

  private chargeEvaluation(nodes: number, at: Token): void {
    this.evaluated += nodes;
    if (this.evaluated > EVAL_NODES_PER_OP * this.maxOps) {
      throw qasmError('TOO_MANY_GATES', `the program evaluates more than ${EVAL_NODES_PER_OP * this.maxOps} expression terms (parameters of inlined gate calls)`, at);
    }
  }

  private emit(op: Operation, at: Token): void {
    if (this.ops.length >= this.maxOps) throw qasmError('TOO_MANY_GATES', `the program expands to more than ${this.maxOps} operations`, at);
    if (this.conditions.length > 0) {
      if (op.kind !== 'gate') throw qasmError('QASM_UNSUPPORTED', `a ${op.kind} inside an if body is not supported: only gates can be conditioned`, at);
      const cond = combinedCondition(this.conditions);
      if (cond === null) return; // two tests of one bit disagree: the gate never runs
      this.ops.push(conditioned(op, cond));
      return;
    }
    this.ops.push(op);
  }

  private gateCall(): void {
    const mods = this.modifiers();
    const name = this.expectId('a gate name');
    const params = this.paramList();
    const args = this.argList();
    this.expect(';');
    this.chargeEvaluation(
      params.reduce((n, p) => n + exprSize(p), 0),
      name,
    );
    const exprs = params.map((p) => this.symbolic(p));
    if (exprs.some((e) => e !== null)) return this.symbolicCall(mods, name, params, exprs, args);
    const values = params.map((p) => evalExpr(p, this.loopEnv));
    // not inside an if: a kept call is written back without its condition
    const user = this.definitions !== undefined && mods.length === 0 && this.userGates.has(name.text) && this.conditions.length === 0;
    for (const row of this.broadcast(
      args,
      args.map(() => true),
    )) {
      const start = this.ops.length;
      this.apply(name, mods, values, row, 0);
      // Bounded like the ops: past maxOps calls (empty bodies emit nothing) the rest are only inlined.
      if (user && this.calls.length < this.maxOps) this.calls.push({ name: name.text, params: values, qubits: row, start, count: this.ops.length - start });
    }
  }

  /** A catalogue gate with input parameters: kept symbolic (no modifiers, no user gates: their bodies would need symbolic inlining). */
  private symbolicCall(mods: readonly Modifier[], name: Token, params: readonly Expr[], exprs: readonly (ParamExpr | null)[], args: ReturnType<Parser['argList']>): void {
    const canonical = QASM_ALIASES[name.text] ?? name.text;
    const std = gateSpec(canonical);
    if (std === undefined) throw qasmError('QASM_UNSUPPORTED', `input parameters may be passed to catalogue gates only, not to '${name.text}'`, name);
    if (mods.length > 0) throw qasmError('QASM_UNSUPPORTED', 'modifiers on a gate with input parameters are not supported', mods[0]!.tok);
    if (params.length !== std.params) throw qasmError('WRONG_PARAM_COUNT', `gate '${name.text}' takes ${std.params} parameters, got ${params.length}`, name);
    const values = params.map((p, i) => (exprs[i] === null ? evalExpr(p, this.loopEnv) : Number.NaN));
    for (const row of this.broadcast(
      args,
      args.map(() => true),
    )) {
      if (row.length !== std.arity) throw qasmError('WRONG_ARITY', `gate '${canonical}' acts on ${std.arity} qubits, got ${row.length}`, name);
      checkDistinct(row, name);
      this.emit(symbolicGate(canonical, row, values, exprs), name);
    }
  }

  /** Applies a (possibly user-defined) gate to concrete qubits, inlining user gates recursively. */
  private apply(name: Token, mods: readonly Modifier[], params: readonly number[], qubits: readonly number[], depth: number): void {
    const canonical = QASM_ALIASES[name.text] ?? name.text;
    const std = gateSpec(canonical);
    if (std === undefined) {
      const user = this.userGates.get(name.text);
      if (user === undefined) {
        if (this.opaque.has(name.text)) throw qasmError('QASM_UNSUPPORTED', `opaque gate '${name.text}' cannot be imported`, name);
        throw qasmError('UNKNOWN_GATE', `unknown gate '${name.text}'`, name);
      }
      if (mods.length > 0) throw qasmError('QASM_UNSUPPORTED', `modifiers on user-defined gate '${name.text}' are not supported`, mods[0]!.tok);
      if (params.length !== user.params.length) {
        throw qasmError('WRONG_PARAM_COUNT', `gate '${name.text}' takes ${user.params.length} parameters, got ${params.length}`, name);
      }
      if (qubits.length !== user.qargs.length) {
        throw qasmError('WRONG_ARITY', `gate '${name.text}' acts on ${user.qargs.length} qubits, got ${qubits.length}`, name);
      }
      checkDistinct(qubits, name);
      // Nested definitions can call each other 2^k times while emitting nothing (empty bodies,
      // only gphase); counting the calls keeps a short program from running for hours.
      if (++this.expansions > EXPANSIONS_PER_OP * this.maxOps) {
        throw qasmError('TOO_MANY_GATES', `the program expands to more than ${EXPANSIONS_PER_OP * this.maxOps} user-gate calls`, name);
      }
      if (depth > 64) throw qasmError('QASM_UNSUPPORTED', `gate definitions nest too deeply at '${name.text}'`, name);
      const env = new Map(user.params.map((p, i) => [p, params[i]!] as const));
      const qmap = new Map(user.qargs.map((a, i) => [a, qubits[i]!] as const));
      for (const s of user.body) {
        const qs = s.args.map((a) => qmap.get(a.name)!);
        if (s.kind === 'barrier') this.emit(barrier([...new Set(qs)]), name);
        else {
          this.chargeEvaluation(s.paramNodes, s.name);
          this.apply(
            s.name,
            s.mods,
            s.params.map((p) => evalExpr(p, env)),
            qs,
            depth + 1,
          );
        }
      }
      return;
    }
    if (params.length !== std.params) {
      throw qasmError('WRONG_PARAM_COUNT', `gate '${name.text}' takes ${std.params} parameters, got ${params.length}`, name);
    }
    let resolved: { name: string; params: number[] } | undefined = { name: canonical, params: [...params] };
    for (let i = mods.length - 1; i >= 0 && resolved !== undefined; i--) {
      const m = mods[i]!;
      resolved = m.kind === 'inv' ? applyInv(resolved.name, resolved.params) : applyCtrl(resolved.name, resolved.params, m.n);
      if (resolved === undefined) {
        throw qasmError('QASM_UNSUPPORTED', `'${m.kind}' on this gate has no equivalent in the gate catalogue`, m.tok);
      }
    }
    const target = gateSpec(resolved.name)!;
    if (qubits.length !== target.arity) {
      throw qasmError('WRONG_ARITY', `gate '${resolved.name}' acts on ${target.arity} qubits, got ${qubits.length}`, name);
    }
    checkDistinct(qubits, name);
    for (const p of resolved.params) {
      if (!Number.isFinite(p)) throw qasmError('NON_FINITE_PARAM', `gate '${name.text}' has a non-finite parameter`, name);
    }
    // -0 and 0 are the same angle; keep one spelling so round trips compare equal.
    this.emit(
      gate(
        resolved.name,
        qubits,
        resolved.params.map((p) => (p === 0 ? 0 : p)),
      ),
      name,
    );
  }
}

const EMPTY_ENV: ReadonlyMap<string, number> = new Map();

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function checkDistinct(qubits: readonly number[], at: Token): void {
  if (new Set(qubits).size !== qubits.length) throw qasmError('DUPLICATE_QUBIT', `gate '${at.text}' uses the same qubit twice`, at);
}

/** Parses OpenQASM 2.0 or 3.0 source into a circuit; throws AppError QASM_PARSE_ERROR (400) with line/column. */
export function parseQasm(source: string, options: QasmParseOptions = {}): Circuit {
  const parser = new Parser(tokenize(source), options.maxQubits ?? DEFAULT_MAX_QUBITS, options.maxOps ?? DEFAULT_MAX_OPS, options.keepGateDefinitions === true);
  const c = parser.parse();
  options.warnings?.push(...parser.warnings);
  return c;
}
