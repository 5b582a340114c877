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

export function parseExpr(c: TokenCursor): Expr {
  let left = parseTerm(c);
  for (;;) {
    const t = c.peek();
    if (t.type === 'punct' && (t.text === '+' || t.text === '-')) {
      c.next();
      left = { kind: 'bin', op: t.text, left, right: parseTerm(c), tok: t };
    } else {
      return left;
    }
  }
}

function parseTerm(c: TokenCursor): Expr {
  let left = parseUnary(c);
  for (;;) {
    const t = c.peek();
    if (t.type === 'punct' && (t.text === '*' || t.text === '/')) {
      c.next();
      left = { kind: 'bin', op: t.text, left, right: parseUnary(c), tok: t };
    } else {
      return left;
    }
  }
}

function parseUnary(c: TokenCursor): Expr {
  const t = c.peek();
  if (t.type === 'punct' && t.text === '-') {
    c.next();
    return { kind: 'neg', arg: parseUnary(c) };
  }
  if (t.type === 'punct' && t.text === '+') {
    c.next();
    return parseUnary(c);
  }
  return parsePower(c);
}

function parsePower(c: TokenCursor): Expr {
  const base = parsePrimary(c);
  const t = c.peek();
  if (t.type === 'punct' && (t.text === '^' || t.text === '**')) {
    c.next();
    // Right-associative and tighter than unary minus on its left: -pi^2 = -(pi^2).
    return { kind: 'bin', op: '^', left: base, right: parseUnary(c), tok: t };
  }
  return base;
}

function parsePrimary(c: TokenCursor): Expr {
  const t = c.next();
  if (t.type === 'num') return { kind: 'num', value: Number(t.text) };
  if (t.type === 'punct' && t.text === '(') {
    const e = parseExpr(c);
    c.expect(')');
    return e;
  }
  if (t.type === 'id') {
    if (FUNCTIONS[t.text] !== undefined && c.peek().text === '(') {
      c.next();
      const arg = parseExpr(c);
      c.expect(')');
      return { kind: 'call', fn: t.text, arg, tok: t };
    }
    return { kind: 'var', name: t.text, tok: t };
  }
  throw qasmError('QASM_SYNTAX_ERROR', `expected an expression, found '${t.text}'`, t);
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
