/**
 * The rules qiskit-ibm-runtime applies to a circuit before it submits it to a primitive, applied
 * to the OpenQASM 3 text qrail sends (so a mistake of our translation or our spelling is caught
 * here, before any network call, rather than by IBM after the job was queued):
 * - `is_isa_circuit`: no more qubits than the target; every instruction but `barrier` supported on
 *   its qubits (`target.instruction_supported(name, qargs)`): a basis gate, two-qubit gates only on
 *   coupling-map pairs; control flow (`if`) only where the target has `if_else`, its blocks checked
 *   the same way; a fractional `rzz` only with an angle in [0, π/2];
 * - `check_faulty`: no faulty qubit, no faulty pair;
 * - the ISA is physical: qubits are `$n`; a declared (virtual) qubit register is refused.
 * Only the subset of OpenQASM 3 the driver writes (ibm-qasm.ts) is read; anything else is refused
 * as `syntax`, never passed unchecked. The first violation is returned, as IBM's check does.
 */
import type { IsaTarget } from './ibm-isa-target.js';
import { undirectedPair } from './ibm-isa-target.js';

export type IsaRule = 'syntax' | 'physical-qubits' | 'qubit-range' | 'basis' | 'arity' | 'coupling' | 'faulty' | 'dynamic' | 'angle' | 'register';

export interface IsaViolation {
  readonly rule: IsaRule;
  /** 1-based line of the text. */
  readonly line: number;
  readonly message: string;
}

/** Qubits and parameters of the standard gates (stdgates.inc) and IBM's basis gates outside it. */
const SHAPE: Readonly<Record<string, readonly [qubits: number, params: number]>> = {
  id: [1, 0],
  x: [1, 0],
  y: [1, 0],
  z: [1, 0],
  h: [1, 0],
  s: [1, 0],
  sdg: [1, 0],
  t: [1, 0],
  tdg: [1, 0],
  sx: [1, 0],
  rx: [1, 1],
  ry: [1, 1],
  rz: [1, 1],
  p: [1, 1],
  u: [1, 3],
  cx: [2, 0],
  cz: [2, 0],
  ecr: [2, 0],
  swap: [2, 0],
  rzz: [2, 1],
};

/** OpenQASM 3 statements the driver never writes (a loop, a switch, a subroutine, a declaration, …): refused as syntax, not as a gate. */
const KEYWORDS = new Set(
  'while for switch else def defcal cal gate input output let const box return break continue end extern pragma int uint float angle bool duration stretch complex array creg measure delay opaque U CX gphase'.split(
    ' ',
  ),
);

interface Tok {
  readonly t: string;
  readonly line: number;
}

const TOKEN = /\s+|\/\/[^\n]*|(\$\d+|[A-Za-z_][A-Za-z0-9_]*|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|"[^"\n]*"|==|[-+*/(){}[\],;=!~])/y;

class Refusal extends Error {
  constructor(readonly v: IsaViolation) {
    super(v.message);
  }
}

function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  let line = 1;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (m === null) throw new Refusal({ rule: 'syntax', line, message: `unexpected character ${JSON.stringify(text[at])}` });
    if (m[1] !== undefined) out.push({ t: m[1], line });
    line += (m[0].match(/\n/g) ?? []).length;
  }
  return out;
}

class Checker {
  private i = 0;
  private readonly regs = new Map<string, number>();

  constructor(
    private readonly toks: readonly Tok[],
    private readonly target: IsaTarget,
  ) {}

  private get line(): number {
    return (this.toks[this.i] ?? this.toks[this.toks.length - 1])?.line ?? 1;
  }
  private refuse(rule: IsaRule, message: string, line = this.line): never {
    throw new Refusal({ rule, line, message });
  }
  private peek(k = 0): string | undefined {
    return this.toks[this.i + k]?.t;
  }
  private next(): string {
    const t = this.toks[this.i++];
    if (t === undefined) this.refuse('syntax', 'the program ends in the middle of a statement');
    return t.t;
  }
  private expect(s: string): void {
    const t = this.next();
    if (t !== s) this.refuse('syntax', `expected "${s}", found "${t}"`);
  }
  private int(): number {
    const t = this.next();
    if (!/^\d+$/.test(t)) this.refuse('syntax', `expected an integer, found "${t}"`);
    return Number(t);
  }

  run(): void {
    this.expect('OPENQASM');
    if (!/^3(\.0)?$/.test(this.next())) this.refuse('syntax', 'the Sampler takes OpenQASM 3');
    this.expect(';');
    while (this.peek() === 'include') {
      this.next();
      if (this.next() !== '"stdgates.inc"') this.refuse('syntax', 'only stdgates.inc may be included');
      this.expect(';');
    }
    while (this.peek() !== undefined) this.statement();
  }

  /** A `$n` operand, on the device and not faulty. */
  private qubit(): number {
    const line = this.line;
    const t = this.next();
    if (!t.startsWith('$')) {
      if (/^[A-Za-z_]/.test(t)) this.refuse('physical-qubits', `qubit "${t}" is not a physical qubit ($n): an ISA circuit is on the backend's physical qubits`, line);
      this.refuse('syntax', `expected a qubit, found "${t}"`, line);
    }
    const q = Number(t.slice(1));
    if (q >= this.target.numQubits) this.refuse('qubit-range', `qubit ${t} does not exist on ${this.target.backend} (${this.target.numQubits} qubits)`, line);
    if (this.target.faultyQubits.has(q)) this.refuse('faulty', `qubit ${t} is reported faulty on ${this.target.backend}`, line);
    return q;
  }

  private clbit(): void {
    const name = this.next();
    const size = this.regs.get(name);
    if (size === undefined) this.refuse('register', `classical register "${name}" is not declared`);
    this.expect('[');
    const b = this.int();
    this.expect(']');
    if (b >= size) this.refuse('register', `bit ${name}[${b}] is outside the register (size ${size})`);
  }

  private instruction(name: string, line: number): void {
    if (!this.target.instructions.has(name))
      this.refuse(name === 'if_else' ? 'dynamic' : 'basis', `${name} is not an instruction of ${this.target.backend} (${[...this.target.instructions].sort().join(', ')})`, line);
  }

  private statement(): void {
    const line = this.line;
    const head = this.next();
    if (head === 'qubit' || head === 'qreg') this.refuse('physical-qubits', 'a declared qubit register is virtual: an ISA circuit uses the physical qubits $n', line);
    if (head === 'bit') {
      this.expect('[');
      const size = this.int();
      this.expect(']');
      const name = this.next();
      if (!/^[A-Za-z_]\w*$/.test(name) || this.regs.has(name)) this.refuse('syntax', `bad or repeated register name "${name}"`, line);
      this.regs.set(name, size);
      return this.expect(';');
    }
    if (head === 'if') return this.branch(line);
    if (head === 'barrier') {
      for (this.qubit(); this.peek() === ','; this.qubit()) this.next();
      return this.expect(';');
    }
    if (head === 'reset') {
      this.instruction('reset', line);
      this.qubit();
      return this.expect(';');
    }
    if (this.peek() === '[') {
      // c[i] = measure $q;
      this.i--;
      this.clbit();
      this.expect('=');
      this.expect('measure');
      this.instruction('measure', line);
      this.qubit();
      return this.expect(';');
    }
    this.gate(head, line);
  }

  private gate(name: string, line: number): void {
    if (!/^[A-Za-z_]\w*$/.test(name) || KEYWORDS.has(name)) this.refuse('syntax', `unexpected "${name}": not a statement of the OpenQASM 3 subset the driver writes`, line);
    this.instruction(name, line);
    const params: number[] = [];
    if (this.peek() === '(') {
      this.next();
      for (;;) {
        params.push(this.angle());
        if (this.peek() !== ',') break;
        this.next();
      }
      this.expect(')');
    }
    const qs = [this.qubit()];
    while (this.peek() === ',') {
      this.next();
      qs.push(this.qubit());
    }
    this.expect(';');
    const shape = SHAPE[name];
    if (shape === undefined) this.refuse('basis', `${name} is not a gate qrail knows the shape of`, line);
    if (qs.length !== shape[0] || params.length !== shape[1]) this.refuse('arity', `${name} takes ${shape[0]} qubit(s) and ${shape[1]} parameter(s), got ${qs.length} and ${params.length}`, line);
    if (new Set(qs).size !== qs.length) this.refuse('arity', `${name} names a qubit twice`, line);
    if (qs.length === 2) {
      const [a, b] = qs as [number, number];
      if (this.target.faultyPairs.has(undirectedPair(a, b))) this.refuse('faulty', `pair $${a}–$${b} is reported faulty on ${this.target.backend}`, line);
      if (this.target.pairs !== null && !this.target.pairs.has(`${a}-${b}`)) this.refuse('coupling', `${name} on $${a}, $${b}: not a pair of ${this.target.backend}'s coupling map`, line);
    }
    if (name === 'rzz' && !(params[0]! >= 0 && params[0]! <= Math.PI / 2 + 1e-10)) this.refuse('angle', `rzz takes angles in [0, pi/2] on IBM hardware, got ${params[0]}`, line);
  }

  /** if (cond) stmt | if (cond) { stmt* } — conditions on a bit (== true/false, bare) or a whole register (== k). */
  private branch(line: number): void {
    this.instruction('if_else', line);
    this.expect('(');
    const name = this.next();
    const size = this.regs.get(name);
    if (size === undefined) this.refuse('register', `classical register "${name}" is not declared`, line);
    if (this.peek() === '[') {
      this.i--;
      this.clbit();
      if (this.peek() === '==') {
        this.next();
        const v = this.next();
        if (v !== 'true' && v !== 'false') this.refuse('syntax', `a bit is compared with true or false, not "${v}"`, line);
      }
    } else {
      this.expect('==');
      const v = this.int();
      if (size < 53 && v >= 2 ** size) this.refuse('register', `${name} has ${size} bits and can never equal ${v}`, line);
    }
    this.expect(')');
    if (this.peek() !== '{') return this.statement();
    this.next();
    while (this.peek() !== '}') {
      if (this.peek() === undefined) this.refuse('syntax', 'an if block is not closed');
      this.statement();
    }
    this.next();
    if (this.peek() === 'else') this.refuse('syntax', 'else blocks are not written by qrail', line);
  }

  /** A constant angle: numbers, pi, + - * / and parentheses. */
  private angle(): number {
    let v = this.term();
    while (this.peek() === '+' || this.peek() === '-') v = this.next() === '+' ? v + this.term() : v - this.term();
    return v;
  }
  private term(): number {
    let v = this.factor();
    while (this.peek() === '*' || this.peek() === '/') v = this.next() === '*' ? v * this.factor() : v / this.factor();
    return v;
  }
  private factor(): number {
    const t = this.next();
    if (t === '-') return -this.factor();
    if (t === 'pi') return Math.PI;
    if (t === '(') {
      const v = this.angle();
      this.expect(')');
      return v;
    }
    if (/^(\d|\.\d)/.test(t)) return Number(t);
    return this.refuse('syntax', `"${t}" is not a constant angle (a bound circuit is sent)`);
  }
}

/** Null when `text` is an ISA circuit of `target`; else the first rule it breaks. */
export function checkIbmIsa(text: string, target: IsaTarget): IsaViolation | null {
  try {
    new Checker(tokenize(text), target).run();
    return null;
  } catch (e) {
    if (e instanceof Refusal) return e.v;
    throw e;
  }
}
