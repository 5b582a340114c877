/**
 * Symbolic gate parameters (wire format 0.2 `parameters`, OpenQASM 3 `input`): a small safe
 * expression grammar — numbers, `pi`, declared names, + - * /, unary minus, parentheses — with
 * bounded length and nesting. Expressions are trees, evaluated by closures compiled once per
 * circuit (never `eval`), so a sweep binds thousands of points without parsing again.
 */

export type ParamExpr =
  | { readonly k: 'num'; readonly v: number }
  | { readonly k: 'pi' }
  | { readonly k: 'name'; readonly name: string }
  | { readonly k: 'neg'; readonly a: ParamExpr }
  | { readonly k: 'bin'; readonly op: '+' | '-' | '*' | '/'; readonly a: ParamExpr; readonly b: ParamExpr };

/** Longest expression text accepted, and deepest nesting (parentheses and unary signs). */
export const MAX_PARAM_EXPR_CHARS = 256;
export const MAX_PARAM_EXPR_DEPTH = 16;
/** Declared parameters per circuit, and the pattern of a name. */
export const MAX_PARAMETERS = 64;
export const PARAMETER_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
const NAME_RE = new RegExp(PARAMETER_NAME_PATTERN);
/** Names a parameter may not take: the constant and the QASM built-ins an expression could mean otherwise. */
export const RESERVED_PARAMETER_NAMES: ReadonlySet<string> = new Set(['pi', 'tau', 'euler', 'sin', 'cos', 'tan', 'exp', 'ln', 'sqrt', 'arcsin', 'arccos', 'arctan']);

export type ParamExprError = { readonly code: 'WRONG_TYPE' | 'EXPRESSION_TOO_LONG' | 'EXPRESSION_TOO_DEEP' | 'PARAMETER_UNKNOWN'; readonly message: string };

export function isValidParameterName(s: string): boolean {
  return NAME_RE.test(s) && !RESERVED_PARAMETER_NAMES.has(s);
}

class Fail extends Error {
  constructor(readonly detail: ParamExprError) {
    super(detail.message);
  }
}

/** Parses `text` against the declared names; every identifier other than `pi` must be declared. */
export function parseParamExpr(text: string, declared: ReadonlySet<string>): { ok: true; expr: ParamExpr } | { ok: false; error: ParamExprError } {
  if (text.length > MAX_PARAM_EXPR_CHARS) return { ok: false, error: { code: 'EXPRESSION_TOO_LONG', message: `a parameter expression may have at most ${MAX_PARAM_EXPR_CHARS} characters` } };
  let i = 0;
  let depth = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  const syntax = (what: string): never => {
    throw new Fail({ code: 'WRONG_TYPE', message: `${what} at character ${i + 1} of the expression` });
  };
  const sum = (): ParamExpr => {
    let left = term();
    for (;;) {
      ws();
      const c = text[i];
      if (c !== '+' && c !== '-') return left;
      i++;
      left = { k: 'bin', op: c, a: left, b: term() };
    }
  };
  const term = (): ParamExpr => {
    let left = unary();
    for (;;) {
      ws();
      const c = text[i];
      if (c !== '*' && c !== '/') return left;
      i++;
      left = { k: 'bin', op: c, a: left, b: unary() };
    }
  };
  const unary = (): ParamExpr => {
    if (++depth > MAX_PARAM_EXPR_DEPTH) throw new Fail({ code: 'EXPRESSION_TOO_DEEP', message: `a parameter expression may nest at most ${MAX_PARAM_EXPR_DEPTH} levels (parentheses, signs)` });
    ws();
    let e: ParamExpr;
    if (text[i] === '-') {
      i++;
      e = { k: 'neg', a: unary() };
    } else if (text[i] === '+') {
      i++;
      e = unary();
    } else e = primary();
    depth--;
    return e;
  };
  const primary = (): ParamExpr => {
    ws();
    const c = text[i];
    if (c === '(') {
      i++;
      const e = sum();
      ws();
      if (text[i] !== ')') syntax("expected ')'");
      i++;
      return e;
    }
    const num = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i));
    if (num !== null) {
      i += num[0].length;
      return { k: 'num', v: Number(num[0]) };
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (id !== null) {
      i += id[0].length;
      if (id[0] === 'pi') return { k: 'pi' };
      if (!declared.has(id[0])) {
        throw new Fail({ code: 'PARAMETER_UNKNOWN', message: `'${id[0]}' is not a declared parameter (declare it in "parameters"; the only constant is pi)` });
      }
      return { k: 'name', name: id[0] };
    }
    return syntax(i >= text.length ? 'the expression ends early' : `unexpected '${c}'`);
  };
  try {
    const e = sum();
    ws();
    if (i < text.length) syntax(`unexpected '${text[i]}'`);
    return { ok: true, expr: e };
  } catch (err) {
    if (err instanceof Fail) return { ok: false, error: err.detail };
    throw err;
  }
}

/** The declared names an expression uses. */
export function exprNames(e: ParamExpr, into: Set<string> = new Set()): Set<string> {
  if (e.k === 'name') into.add(e.name);
  else if (e.k === 'neg') exprNames(e.a, into);
  else if (e.k === 'bin') {
    exprNames(e.a, into);
    exprNames(e.b, into);
  }
  return into;
}

const PREC = { '+': 1, '-': 1, '*': 2, '/': 2 } as const;

function fmtNum(v: number): string {
  return Object.is(v, -0) ? '0' : String(v);
}

/** Text that parses back to the same tree shape (minimal parentheses). */
export function formatParamExpr(e: ParamExpr): string {
  const go = (x: ParamExpr, outer: number, right: boolean): string => {
    switch (x.k) {
      case 'num':
        return x.v < 0 && right ? `(${fmtNum(x.v)})` : fmtNum(x.v);
      case 'pi':
        return 'pi';
      case 'name':
        return x.name;
      case 'neg': {
        // Unary minus binds tighter than every operator; parentheses only keep `a - -b` readable.
        const s = `-${go(x.a, 3, false)}`;
        return right ? `(${s})` : s;
      }
      case 'bin': {
        const p = PREC[x.op];
        const s = `${go(x.a, p, false)}${x.op}${go(x.b, p, true)}`;
        // The right operand of - and / needs parentheses at equal precedence; a looser operator always does.
        return p < outer || (p === outer && right) ? `(${s})` : s;
      }
    }
  };
  return go(e, 0, false);
}

/** An evaluator over the values of `parameters` in declaration order. */
export type CompiledExpr = (values: Float64Array) => number;

export function compileParamExpr(e: ParamExpr, index: ReadonlyMap<string, number>): CompiledExpr {
  switch (e.k) {
    case 'num': {
      const v = e.v;
      return () => v;
    }
    case 'pi':
      return () => Math.PI;
    case 'name': {
      const i = index.get(e.name);
      if (i === undefined) throw new Error(`parameter ${e.name} is not declared`);
      return (vs) => vs[i]!;
    }
    case 'neg': {
      const a = compileParamExpr(e.a, index);
      return (vs) => -a(vs);
    }
    case 'bin': {
      const a = compileParamExpr(e.a, index);
      const b = compileParamExpr(e.b, index);
      switch (e.op) {
        case '+':
          return (vs) => a(vs) + b(vs);
        case '-':
          return (vs) => a(vs) - b(vs);
        case '*':
          return (vs) => a(vs) * b(vs);
        case '/':
          return (vs) => a(vs) / b(vs);
      }
    }
  }
}

/** Evaluates with a name → value map (slow path: tests, certificates). */
export function evalParamExpr(e: ParamExpr, env: ReadonlyMap<string, number>): number {
  switch (e.k) {
    case 'num':
      return e.v;
    case 'pi':
      return Math.PI;
    case 'name': {
      const v = env.get(e.name);
      if (v === undefined) throw new Error(`parameter ${e.name} is unbound`);
      return v;
    }
    case 'neg':
      return -evalParamExpr(e.a, env);
    case 'bin': {
      const a = evalParamExpr(e.a, env);
      const b = evalParamExpr(e.b, env);
      return e.op === '+' ? a + b : e.op === '-' ? a - b : e.op === '*' ? a * b : a / b;
    }
  }
}

/**
 * An affine form c·π + c0 + Σ k_i·name_i, when the expression is one (sums, differences,
 * products and quotients by constants). Coefficients of π are kept apart so `pi/4 + pi/4`
 * stays exactly `pi/2`. Null for anything else (θ·φ, 1/θ).
 */
export interface Affine {
  readonly c0: number;
  readonly cpi: number;
  readonly terms: ReadonlyMap<string, number>;
}

export function affineOf(e: ParamExpr): Affine | null {
  switch (e.k) {
    case 'num':
      return { c0: e.v, cpi: 0, terms: new Map() };
    case 'pi':
      return { c0: 0, cpi: 1, terms: new Map() };
    case 'name':
      return { c0: 0, cpi: 0, terms: new Map([[e.name, 1]]) };
    case 'neg': {
      const a = affineOf(e.a);
      return a === null ? null : scale(a, -1);
    }
    case 'bin': {
      const a = affineOf(e.a);
      const b = affineOf(e.b);
      if (a === null || b === null) return null;
      if (e.op === '+') return add(a, b);
      if (e.op === '-') return add(a, scale(b, -1));
      const aConst = a.terms.size === 0 && a.cpi === 0;
      const bConst = b.terms.size === 0 && b.cpi === 0;
      if (e.op === '*') {
        if (aConst) return scale(b, a.c0);
        if (bConst) return scale(a, b.c0);
        return null;
      }
      return bConst && b.c0 !== 0 ? scale(a, 1 / b.c0) : null;
    }
  }
}

function scale(a: Affine, k: number): Affine {
  return { c0: a.c0 * k, cpi: a.cpi * k, terms: new Map([...a.terms].map(([n, v]) => [n, v * k] as const)) };
}

function add(a: Affine, b: Affine): Affine {
  const terms = new Map(a.terms);
  for (const [n, v] of b.terms) terms.set(n, (terms.get(n) ?? 0) + v);
  for (const [n, v] of [...terms]) if (v === 0) terms.delete(n);
  return { c0: a.c0 + b.c0, cpi: a.cpi + b.cpi, terms };
}

/** The expression of an affine form, names in sorted order, π terms written as multiples of pi. */
export function affineExpr(f: Affine): ParamExpr {
  const parts: ParamExpr[] = [];
  const mul = (k: number, x: ParamExpr): ParamExpr => (k === 1 ? x : k === -1 ? { k: 'neg', a: x } : { k: 'bin', op: '*', a: { k: 'num', v: k }, b: x });
  for (const n of [...f.terms.keys()].sort()) parts.push(mul(f.terms.get(n)!, { k: 'name', name: n }));
  if (f.cpi !== 0) parts.push(mul(f.cpi, { k: 'pi' }));
  if (f.c0 !== 0) parts.push({ k: 'num', v: f.c0 });
  if (parts.length === 0) return { k: 'num', v: 0 };
  return parts.slice(1).reduce<ParamExpr>((acc, p) => (p.k === 'neg' ? { k: 'bin', op: '-', a: acc, b: p.a } : { k: 'bin', op: '+', a: acc, b: p }), parts[0]!);
}

/** Whether two affine forms are the same function (exact coefficient equality). */
export function affineEqual(a: Affine, b: Affine): boolean {
  if (a.c0 !== b.c0 || a.cpi !== b.cpi || a.terms.size !== b.terms.size) return false;
  for (const [n, v] of a.terms) if (b.terms.get(n) !== v) return false;
  return true;
}

/** a + b, kept affine (and so canonical) when both are. */
export function sumExpr(a: ParamExpr, b: ParamExpr): ParamExpr {
  const fa = affineOf(a);
  const fb = affineOf(b);
  if (fa !== null && fb !== null) return affineExpr(add(fa, fb));
  return { k: 'bin', op: '+', a, b };
}

/** True when the expression is identically zero (its affine form has no terms). */
export function isZeroExpr(e: ParamExpr): boolean {
  const f = affineOf(e);
  return f !== null && f.c0 === 0 && f.cpi === 0 && f.terms.size === 0;
}

/** A numeric parameter as an expression (for merging a symbolic rotation with a numeric one). */
export function numExpr(v: number): ParamExpr {
  return { k: 'num', v };
}
