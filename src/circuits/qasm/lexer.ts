import { fail } from '../../errors/app-error.js';
import { CIRCUITS_ERRORS, type CircuitProblemCode } from '../error-codes.js';

/** A token of OpenQASM 2 or 3 source, with its 1-based line and column for error messages. */
export interface Token {
  readonly type: 'id' | 'num' | 'str' | 'punct' | 'eof';
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

/** The one way QASM import fails: an AppError QASM_PARSE_ERROR whose details carry line and column. */
export function qasmError(code: CircuitProblemCode, message: string, at: { line: number; column: number }): Error {
  return fail(CIRCUITS_ERRORS.QASM_PARSE_ERROR, `line ${at.line}, column ${at.column}: ${message}`, [{ path: '/source', code, message, line: at.line, column: at.column }]);
}

// Longest first, so that `->` wins over `-` and `**` over `*`.
const PUNCT = ['->', '**', '==', '!=', '!', '(', ')', '[', ']', '{', '}', ';', ',', '+', '-', '*', '/', '^', '@', '=', ':'];
const ID_START = /[\p{L}_$]/u;
const ID_PART = /[\p{L}\p{N}_]/u;

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  const n = source.length;
  const advance = (k: number): void => {
    for (let j = 0; j < k; j++) {
      if (source[i] === '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
      i++;
    }
  };
  while (i < n) {
    const ch = source[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n' || ch === '\f' || ch === '\v' || ch === '\uFEFF') {
      advance(1);
      continue;
    }
    if (ch === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') advance(1);
      continue;
    }
    if (ch === '/' && source[i + 1] === '*') {
      const at = { line, column: col };
      const end = source.indexOf('*/', i + 2);
      if (end < 0) throw qasmError('QASM_SYNTAX_ERROR', 'unterminated block comment', at);
      advance(end + 2 - i);
      continue;
    }
    const at = { line, column: col };
    if (ch === '"' || ch === "'") {
      const end = source.indexOf(ch, i + 1);
      const nl = source.indexOf('\n', i + 1);
      if (end < 0 || (nl >= 0 && nl < end)) throw qasmError('QASM_SYNTAX_ERROR', 'unterminated string', at);
      tokens.push({ type: 'str', text: source.slice(i + 1, end), ...at });
      advance(end + 1 - i);
      continue;
    }
    if ((ch >= '0' && ch <= '9') || (ch === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const m = /^(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?/.exec(source.slice(i, i + 400));
      const text = m![0];
      tokens.push({ type: 'num', text: text.replace(/_/g, ''), ...at });
      advance(text.length);
      if (i < n && ID_START.test(source[i]!)) {
        throw qasmError('QASM_SYNTAX_ERROR', `unexpected character '${source[i]}' after number`, { line, column: col });
      }
      continue;
    }
    if (ID_START.test(ch)) {
      let j = i + 1;
      while (j < n && ID_PART.test(source[j]!)) j++;
      tokens.push({ type: 'id', text: source.slice(i, j), ...at });
      advance(j - i);
      continue;
    }
    const p = PUNCT.find((s) => source.startsWith(s, i));
    if (p === undefined) throw qasmError('QASM_SYNTAX_ERROR', `unexpected character '${ch}'`, at);
    tokens.push({ type: 'punct', text: p, ...at });
    advance(p.length);
  }
  tokens.push({ type: 'eof', text: '<end of input>', line, column: col });
  return tokens;
}
