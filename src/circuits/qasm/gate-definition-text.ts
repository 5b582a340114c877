/**
 * The OpenQASM spelling of kept user gate definitions and calls (export with `inline_gates: false`).
 * A leaf module: the importer records bodies with `bodyText`, export and the call check print them.
 */
import type { GateCall, GateDefinition } from '../ir.js';
import { formatAngle } from './format-angle.js';
import type { Token } from './lexer.js';

/** User gate definitions one circuit may keep (the importer's TOO_MANY_DEFINITIONS, wire `gate_definitions`). */
export const MAX_GATE_DEFINITIONS = 256;
/** Characters of one kept body (wire `gate_definitions[].body`). */
export const MAX_GATE_BODY_CHARS = 65_536;

const NO_SPACE_BEFORE = new Set([',', ';', ')', ']', '*', '/', '^', '**']);
const NO_SPACE_AFTER = new Set(['(', '[', '*', '/', '^', '**']);

/** A body's tokens as one line of OpenQASM: `rz(2*a) q0; u1(-a/2) q1;` (comments are gone, numbers spelled as written). */
export function bodyText(tokens: readonly Token[]): string {
  let out = '';
  let prev: Token | undefined;
  let unary = false;
  for (const t of tokens) {
    const glued = prev === undefined || unary || NO_SPACE_BEFORE.has(t.text) || NO_SPACE_AFTER.has(prev.text) || (t.text === '(' && prev.type === 'id');
    out += (glued ? '' : ' ') + t.text;
    // A sign (after an operator, `(` or `,`) sticks to what follows: `-a`, `(-pi/2)`.
    unary = (t.text === '-' || t.text === '+') && (prev === undefined || (prev.type === 'punct' && prev.text !== ')' && prev.text !== ']'));
    prev = t;
  }
  return out;
}

export function definitionText(d: GateDefinition): string {
  const ps = d.params.length > 0 ? `(${d.params.join(', ')})` : '';
  return `gate ${d.name}${ps} ${d.qubits.join(', ')} { ${d.body} }`;
}

export function callText(k: GateCall, qubit: (q: number) => string): string {
  const ps = k.params.length > 0 ? `(${k.params.map(formatAngle).join(', ')})` : '';
  return `${k.name}${ps} ${k.qubits.map(qubit).join(', ')};`;
}
