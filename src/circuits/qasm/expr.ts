import { qasmError, type Token } from './lexer.js';

/** A classical (angle) expression of a gate parameter, kept as a tree so user gate bodies can be re-evaluated. */
export type Expr =
  | { readonly kind: 'num'; readonly value: number }
  | { readonly kind: 'var'; readonly name: string; readonly tok: Token }
  | { readonly kind: 'neg'; readonly arg: Expr }
  | { readonly kind: 'bin'; readonly op: '+' | '-' | '*' | '/' | '^'; readonly left: Expr; readonly right: Expr; readonly tok: Token }
  | { readonly kind: 'call'; readonly fn: string; readonly arg: Expr; readonly tok: Token };

const CONSTANTS: Readonly<Record<string, number>> = {
  pi: Math.PI,
  π: Math.PI,
  tau: 2 * Math.PI,
  τ: 2 * Math.PI,
  euler: Math.E,
  ℇ: Math.E,
};

const FUNCTIONS: Readonly<Record<string, (x: number) => number>> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  exp: Math.exp,
  ln: Math.log,
  sqrt: Math.sqrt,
  arcsin: Math.asin,
  arccos: Math.acos,
  arctan: Math.atan,
};

/** Minimal cursor interface the expression parser needs from the statement parser. */
export interface TokenCursor {
  peek(): Token;
  next(): Token;
  accept(text: string): boolean;
  expect(text: string): Token;
}

/**
 * Bounds on one expression, so that neither this recursive-descent parser nor `evalExpr`
 * (both recurse once per nesting level, and `evalExpr` once per operator of a left-deep
 * `pi+pi+…` chain) can exhaust the stack: a 4 KB parameter must be a 400, never a 500.
 */
export const MAX_EXPRESSION_DEPTH = 32;
export const MAX_EXPRESSION_NODES = 512;

interface Budget {
  depth: number;
  nodes: number;
}

/** Parses one expression; QASM_PARSE_ERROR (EXPRESSION_TOO_DEEP / EXPRESSION_TOO_LONG) beyond the bounds above. */
export function parseExpr(c: TokenCursor): Expr {
  return parseSum(c, { depth: 0, nodes: 0 });
}

function node<T extends Expr>(b: Budget, e: T, at: Token): T {
  if (++b.nodes > MAX_EXPRESSION_NODES) {
    throw qasmError('EXPRESSION_TOO_LONG', `an expression may have at most ${MAX_EXPRESSION_NODES} terms and operators`, at);
  }
  return e;
}

function parseSum(c: TokenCursor, b: Budget): Expr {
  let left = parseTerm(c, b);
  for (;;) {
    const t = c.peek();
    if (t.type === 'punct' && (t.text === '+' || t.text === '-')) {
      c.next();
      left = node(b, { kind: 'bin', op: t.text, left, right: parseTerm(c, b), tok: t }, t);
    } else {
      return left;
    }
  }
}

function parseTerm(c: TokenCursor, b: Budget): Expr {
  let left = parseUnary(c, b);
  for (;;) {
    const t = c.peek();
    if (t.type === 'punct' && (t.text === '*' || t.text === '/')) {
      c.next();
      left = node(b, { kind: 'bin', op: t.text, left, right: parseUnary(c, b), tok: t }, t);
    } else {
      return left;
    }
  }
}

/** Every nesting level (parentheses, calls, unary signs, `^` operands) passes through here once. */
function parseUnary(c: TokenCursor, b: Budget): Expr {
  const t = c.peek();
  if (++b.depth > MAX_EXPRESSION_DEPTH) {
    throw qasmError('EXPRESSION_TOO_DEEP', `an expression may nest at most ${MAX_EXPRESSION_DEPTH} levels (parentheses, signs, powers, function calls)`, t);
  }
  let e: Expr;
  if (t.type === 'punct' && t.text === '-') {
    c.next();
    e = node(b, { kind: 'neg', arg: parseUnary(c, b) }, t);
  } else if (t.type === 'punct' && t.text === '+') {
    c.next();
    e = parseUnary(c, b);
  } else {
    e = parsePower(c, b);
  }
  b.depth--;
  return e;
}

function parsePower(c: TokenCursor, b: Budget): Expr {
  const base = parsePrimary(c, b);
  const t = c.peek();
  if (t.type === 'punct' && (t.text === '^' || t.text === '**')) {
    c.next();
    // Right-associative and tighter than unary minus on its left: -pi^2 = -(pi^2).
    return node(b, { kind: 'bin', op: '^', left: base, right: parseUnary(c, b), tok: t }, t);
  }
  return base;
}

function parsePrimary(c: TokenCursor, b: Budget): Expr {
  const t = c.next();
  if (t.type === 'num') return node(b, { kind: 'num', value: Number(t.text) }, t);
  if (t.type === 'punct' && t.text === '(') {
    const e = parseSum(c, b);
    c.expect(')');
    return e;
  }
  if (t.type === 'id') {
    if (FUNCTIONS[t.text] !== undefined && c.peek().text === '(') {
      c.next();
      const arg = parseSum(c, b);
      c.expect(')');
      return node(b, { kind: 'call', fn: t.text, arg, tok: t }, t);
    }
    return node(b, { kind: 'var', name: t.text, tok: t }, t);
  }
  throw qasmError('QASM_SYNTAX_ERROR', `expected an expression, found '${t.text}'`, t);
}

/** Number of nodes, i.e. the work of one `evalExpr` (iterative: callers may hold any tree). */
export function exprSize(e: Expr): number {
  let n = 0;
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    n++;
    if (x.kind === 'neg' || x.kind === 'call') stack.push(x.arg);
    else if (x.kind === 'bin') stack.push(x.left, x.right);
  }
  return n;
}

/** Names an expression uses that are neither bound in `env` nor constants, in order of appearance (iterative, like exprSize). */
export function unknownNames(e: Expr, env: ReadonlyMap<string, number>): string[] {
  const out: string[] = [];
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'var' && !env.has(x.name) && CONSTANTS[x.name] === undefined && !out.includes(x.name)) out.push(x.name);
    if (x.kind === 'neg' || x.kind === 'call') stack.push(x.arg);
    else if (x.kind === 'bin') stack.push(x.right, x.left);
  }
  return out;
}

/** Evaluates with gate parameters bound in `env`; unknown names are QASM_UNDEFINED errors. */
export function evalExpr(e: Expr, env: ReadonlyMap<string, number>): number {
  switch (e.kind) {
    case 'num':
      return e.value;
    case 'var': {
      const bound = env.get(e.name);
      if (bound !== undefined) return bound;
      const k = CONSTANTS[e.name];
      if (k !== undefined) return k;
      throw qasmError('QASM_UNDEFINED', `unknown identifier '${e.name}' in expression`, e.tok);
    }
    case 'neg':
      return -evalExpr(e.arg, env);
    case 'call':
      return FUNCTIONS[e.fn]!(evalExpr(e.arg, env));
    case 'bin': {
      const a = evalExpr(e.left, env);
      const b = evalExpr(e.right, env);
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return a / b;
        case '^':
          return a ** b;
      }
    }
  }
}
