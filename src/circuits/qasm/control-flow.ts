/**
 * OpenQASM classical control in the importer (docs/decisions/circuits-dynamic-qasm.md):
 *
 * - `if (c == k) stmt`, `if (c[i]) stmt`, `if (!c[i])`, `if (c[i] == 1)`, `if (c[i] != 0)`, with a
 *   `{ … }` block or one statement, nested, and `else` when the condition is one bit (its negation is
 *   again one test; `c == k` over several bits has no single-test negation, so its `else` is refused).
 *   Every gate the body emits becomes a conditioned gate (the conjunction of the enclosing tests);
 *   a measure, reset or barrier there is refused. OpenQASM 2's `if(c==k) gate;` is the same syntax.
 * - `for int i in [a:b]`, `[a:s:b]` (inclusive, as OpenQASM 3 ranges are) or `{1, 2, 3}` over
 *   constant integers, unrolled: the body is parsed again per value with `i` bound, so `i` may
 *   index qubits and bits and appear in angles. The iteration counts are multiplied and checked
 *   against the operation limit *before* any iteration runs (nested loops: the product with the
 *   enclosing counts), and the tokens re-read are bounded too, so no client number is ever looped
 *   over before it is known to be small.
 */
import { canonicalConditionValue, conditionBit, type Condition } from '../ir.js';
import { evalExpr, parseExpr, type Expr } from './expr.js';
import { qasmError, type Token } from './lexer.js';

/**
 * Enclosing `if` and `for` bodies a statement may have. The parser recurses once per level, so
 * without a bound a deeply nested program would end the import with a stack overflow.
 */
export const MAX_BLOCK_DEPTH = 32;
/** Tokens re-read by unrolling per allowed operation (a body is parsed once per iteration). */
const REPLAY_TOKENS_PER_OP = 64;

/** What control flow needs from the statement parser (parse-qasm.ts). */
export interface FlowParser {
  pos: number;
  readonly maxOps: number;
  /** Loop variables in scope (name → value): indices and expressions read them. */
  readonly loopEnv: Map<string, number>;
  /** The tests of the enclosing `if`s, outermost first. */
  readonly conditions: Condition[];
  /** Product of the iteration counts of the enclosing loops. */
  loopProduct: number;
  /** Tokens re-read by unrolling so far. */
  replayed: number;
  /** Enclosing `if` and `for` bodies (declarations are refused inside them). */
  blockDepth: number;
  peek(k?: number): Token;
  next(): Token;
  accept(text: string): boolean;
  expect(text: string): Token;
  statement(): void;
  /** The clbits a classical operand names (a whole register, or one bit), in order; whether it is one bit. */
  clbitsOf(name: Token, index: number | undefined): { clbits: number[]; single: boolean };
  /** Whether a name is already taken (register, input, loop variable). */
  isDeclared(name: string): boolean;
}

// ---------- if ----------

export function ifStatement(p: FlowParser): void {
  p.next();
  p.expect('(');
  const cond = parseCondition(p);
  p.expect(')');
  body(p, cond.condition);
  if (p.peek().text === 'else' && p.peek().type === 'id') {
    const els = p.next();
    if (!cond.single) {
      throw qasmError(
        'QASM_UNSUPPORTED',
        `'else' of a condition on ${cond.condition.clbits.length} bits is not supported: its negation is no single test (write the other cases as their own if, or test one bit)`,
        els,
      );
    }
    body(p, { clbits: cond.condition.clbits, value: 1 - conditionBit(cond.condition, 0) });
  }
}

function enterBlock(p: FlowParser, at: Token): void {
  if (p.blockDepth >= MAX_BLOCK_DEPTH) throw qasmError('TOO_DEEPLY_NESTED', `if and for may nest at most ${MAX_BLOCK_DEPTH} levels`, at);
}

function body(p: FlowParser, cond: Condition): void {
  enterBlock(p, p.peek());
  p.conditions.push(cond);
  p.blockDepth++;
  try {
    statementOrBlock(p);
  } finally {
    p.blockDepth--;
    p.conditions.pop();
  }
}

function statementOrBlock(p: FlowParser): void {
  if (p.peek().type === 'punct' && p.accept('{')) {
    while (!p.accept('}')) {
      if (p.peek().type === 'eof') throw qasmError('QASM_SYNTAX_ERROR', "a block is not closed with '}'", p.peek());
      p.statement();
    }
    return;
  }
  p.statement();
}

/**
 * `c == k`, `c[i] == b`, `c[i] != b`, `c[i]`, `!c[i]` (k may use loop variables). A condition
 * reads the whole register, however wide (the clbit limit bounds it): `k` written as an integer
 * literal is read exactly (BigInt), so `c == 9223372036854775808` on a 64-bit register is 2^63,
 * not its nearest double; an expression (loop variables) must stay a safe integer.
 */
function parseCondition(p: FlowParser): { condition: Condition; single: boolean } {
  const negated = p.accept('!');
  const name = p.next();
  if (name.type !== 'id') throw qasmError('QASM_SYNTAX_ERROR', `expected a classical register or bit in the condition, found '${name.text}'`, name);
  let index: number | undefined;
  if (p.accept('[')) {
    index = integerValue(p, parseExpr(p), 'a bit index', name);
    p.expect(']');
  }
  const { clbits, single } = p.clbitsOf(name, index);
  let value = 1n;
  let op: Token | undefined;
  if (!negated && (p.peek().text === '==' || p.peek().text === '!=')) {
    op = p.next();
    const v = p.peek();
    if (v.type === 'id' && (v.text === 'true' || v.text === 'false')) {
      p.next();
      value = v.text === 'true' ? 1n : 0n;
    } else if (v.type === 'num' && /^[0-9]+$/.test(v.text) && p.peek(1).text === ')') {
      p.next();
      value = BigInt(v.text);
    } else value = BigInt(integerValue(p, parseExpr(p), 'the compared value', v));
  } else if (!single) {
    throw qasmError('QASM_UNSUPPORTED', `a register of ${clbits.length} bits is tested by comparing it: '${name.text} == k'`, name);
  }
  if (value >= 1n << BigInt(clbits.length)) {
    throw qasmError('CONDITION_INVALID', `${value} does not fit '${name.text}' (${clbits.length} bit${clbits.length === 1 ? '' : 's'}): the condition can never hold`, op ?? name);
  }
  if (op?.text === '!=') {
    if (!single) throw qasmError('QASM_UNSUPPORTED', `'!=' on a register of ${clbits.length} bits is not supported (its negation is no single test)`, op);
    value = 1n - value;
  }
  if (negated) value = 0n;
  return { condition: { clbits, value: canonicalConditionValue(value) }, single };
}

function integerValue(p: FlowParser, e: Expr, what: string, at: Token): number {
  const v = evalExpr(e, p.loopEnv);
  if (!Number.isSafeInteger(v) || v < 0) throw qasmError('QASM_SYNTAX_ERROR', `${what} must be a non-negative integer, got ${v}`, at);
  return v;
}

/**
 * The gate's condition under the enclosing `if`s: their conjunction, one test per bit; null when
 * two tests of one bit disagree (the gate can never run: it is dropped, exactly what it does).
 */
export function combinedCondition(conditions: readonly Condition[]): Condition | null {
  if (conditions.length === 1) return conditions[0]!;
  const bits = new Map<number, 0 | 1>();
  for (const c of conditions) {
    for (let i = 0; i < c.clbits.length; i++) {
      const b = c.clbits[i]!;
      const v = conditionBit(c, i);
      const prev = bits.get(b);
      if (prev !== undefined && prev !== v) return null;
      bits.set(b, v);
    }
  }
  const clbits = [...bits.keys()];
  const value = clbits.reduce((s, b, i) => (bits.get(b) === 1 ? s | (1n << BigInt(i)) : s), 0n);
  return { clbits, value: canonicalConditionValue(value) };
}

// ---------- for ----------

export function forStatement(p: FlowParser): void {
  const at = p.next();
  // `for int i`, `for int[32] i`, `for uint i`, or the older `for i`
  if (p.peek().type === 'id' && (p.peek().text === 'int' || p.peek().text === 'uint') && p.peek(1).text !== 'in') {
    p.next();
    if (p.accept('[')) {
      p.next();
      p.expect(']');
    }
  }
  enterBlock(p, at);
  const v = p.next();
  if (v.type !== 'id') throw qasmError('QASM_SYNTAX_ERROR', `expected a loop variable, found '${v.text}'`, v);
  if (p.isDeclared(v.text) || p.loopEnv.has(v.text)) throw qasmError('QASM_SYNTAX_ERROR', `'${v.text}' is already declared`, v);
  const inTok = p.next();
  if (inTok.text !== 'in') throw qasmError('QASM_SYNTAX_ERROR', `expected 'in', found '${inTok.text}'`, inTok);
  const values = loopValues(p);
  const count = values.count;
  // The bound before any iteration: the iterations of this loop times those of the enclosing ones.
  const product = p.loopProduct * count;
  if (product > p.maxOps) {
    throw qasmError('TOO_MANY_GATES', `the loops unroll to ${product > 1e15 ? 'more than 10^15' : product} iterations, above this deployment's limit of ${p.maxOps} operations`, at);
  }
  const start = p.pos;
  skipStatement(p, p.blockDepth + 1);
  const end = p.pos;
  p.replayed += count * (end - start);
  if (p.replayed > REPLAY_TOKENS_PER_OP * p.maxOps) {
    throw qasmError('TOO_MANY_GATES', `unrolling re-reads more than ${REPLAY_TOKENS_PER_OP * p.maxOps} tokens of loop bodies`, at);
  }
  const outer = p.loopProduct;
  p.loopProduct = Math.max(1, product);
  p.blockDepth++;
  try {
    for (let k = 0; k < count; k++) {
      p.loopEnv.set(v.text, values.at(k));
      p.pos = start;
      statementOrBlock(p);
      if (p.pos !== end) throw qasmError('QASM_SYNTAX_ERROR', 'the loop body could not be delimited', p.peek());
    }
  } finally {
    p.loopEnv.delete(v.text);
    p.loopProduct = outer;
    p.blockDepth--;
  }
  p.pos = end;
}

/** The loop's values as a count and the k-th value (computed, never listed: a range may be huge). */
function loopValues(p: FlowParser): { count: number; at: (k: number) => number } {
  const open = p.peek();
  if (p.accept('{')) {
    const list: number[] = [];
    do list.push(signedInteger(p, parseExpr(p), open));
    while (p.accept(','));
    p.expect('}');
    return { count: list.length, at: (k) => list[k]! };
  }
  if (!p.accept('[')) throw qasmError('QASM_UNSUPPORTED', "a loop runs over a range '[a:b]', '[a:s:b]' or a set '{…}' of constant integers", open);
  const a = signedInteger(p, parseExpr(p), open);
  p.expect(':');
  let step = 1;
  let b = signedInteger(p, parseExpr(p), open);
  if (p.accept(':')) {
    step = b;
    b = signedInteger(p, parseExpr(p), open);
  }
  p.expect(']');
  if (step === 0) throw qasmError('QASM_SYNTAX_ERROR', 'a range step must not be 0', open);
  const span = step > 0 ? b - a : a - b;
  const count = span < 0 ? 0 : Math.floor(span / Math.abs(step)) + 1;
  return { count, at: (k) => a + k * step };
}

function signedInteger(p: FlowParser, e: Expr, at: Token): number {
  const v = evalExpr(e, p.loopEnv);
  if (!Number.isSafeInteger(v)) throw qasmError('QASM_SYNTAX_ERROR', `a loop bound must be an integer, got ${v}`, at);
  return v;
}

/** Moves past one statement or block without running it (to find where a loop body ends). */
function skipStatement(p: FlowParser, depth: number): void {
  const t = p.peek();
  if (depth > MAX_BLOCK_DEPTH) throw qasmError('TOO_DEEPLY_NESTED', `if and for may nest at most ${MAX_BLOCK_DEPTH} levels`, t);
  if (t.type === 'eof') throw qasmError('QASM_SYNTAX_ERROR', 'a loop has no body', t);
  if (t.type === 'punct' && t.text === '{') return skipBalanced(p, '{', '}');
  if (t.type === 'id' && t.text === 'if') {
    p.next();
    skipBalanced(p, '(', ')');
    skipStatement(p, depth + 1);
    if (p.peek().type === 'id' && p.peek().text === 'else') {
      p.next();
      skipStatement(p, depth + 1);
    }
    return;
  }
  if (t.type === 'id' && t.text === 'for') {
    while (!(p.peek().type === 'id' && p.peek().text === 'in')) {
      if (p.peek().type === 'eof') throw qasmError('QASM_SYNTAX_ERROR', "expected 'in'", p.peek());
      p.next();
    }
    p.next();
    if (p.peek().text === '[') skipBalanced(p, '[', ']');
    else skipBalanced(p, '{', '}');
    return skipStatement(p, depth + 1);
  }
  // a simple statement: up to its ';' outside brackets
  let brackets = 0;
  for (;;) {
    const x = p.next();
    if (x.type === 'eof') throw qasmError('QASM_SYNTAX_ERROR', "expected ';'", x);
    if (x.type !== 'punct') continue;
    if (x.text === '(' || x.text === '[') brackets++;
    else if (x.text === ')' || x.text === ']') brackets--;
    else if (x.text === ';' && brackets <= 0) return;
  }
}

function skipBalanced(p: FlowParser, open: string, close: string): void {
  const first = p.expect(open);
  let depth = 1;
  while (depth > 0) {
    const x = p.next();
    if (x.type === 'eof') throw qasmError('QASM_SYNTAX_ERROR', `'${open}' is not closed with '${close}'`, first);
    if (x.type !== 'punct') continue;
    if (x.text === open) depth++;
    else if (x.text === close) depth--;
  }
}
