/**
 * OpenQASM 3 gate modifiers (`ctrl @`, `inv @`) on catalogue gates, resolved by table to a
 * catalogue gate. Only combinations that land on a catalogue gate are supported; anything
 * else is reported as unsupported rather than approximated.
 */

/** Names OpenQASM uses for catalogue gates under another spelling. */
export const QASM_ALIASES: Readonly<Record<string, string>> = {
  U: 'u',
  CX: 'cx',
  phase: 'p',
  cphase: 'cp',
};

/** A controlled catalogue gate as (base gate, number of controls). */
const CONTROLLED: ReadonlyArray<readonly [string, string, number]> = [
  ['cx', 'x', 1],
  ['ccx', 'x', 2],
  ['c3x', 'x', 3],
  ['c4x', 'x', 4],
  ['cy', 'y', 1],
  ['cz', 'z', 1],
  ['ccz', 'z', 2],
  ['ch', 'h', 1],
  ['csx', 'sx', 1],
  ['c3sqrtx', 'sx', 3],
  ['cswap', 'swap', 1],
  ['crx', 'rx', 1],
  ['cry', 'ry', 1],
  ['crz', 'rz', 1],
  ['cp', 'p', 1],
  ['cu1', 'u1', 1],
  ['cu3', 'u3', 1],
];

function split(name: string): { base: string; controls: number } {
  const row = CONTROLLED.find((r) => r[0] === name);
  return row ? { base: row[1], controls: row[2] } : { base: name, controls: 0 };
}

/** `ctrl(n) @ name(params)` as a catalogue gate, or undefined when there is none. */
export function applyCtrl(name: string, params: readonly number[], n: number): { name: string; params: number[] } | undefined {
  const { base, controls } = split(name);
  const total = controls + n;
  // `ctrl @ U(θ,φ,λ)` is the catalogue's four-parameter cu with γ = 0.
  if (base === 'u' && total === 1) return { name: 'cu', params: [...params, 0] };
  const row = CONTROLLED.find((r) => r[1] === base && r[2] === total);
  return row ? { name: row[0], params: [...params] } : undefined;
}

const SELF_INVERSE = new Set(['id', 'x', 'y', 'z', 'h', 'cx', 'cy', 'cz', 'ch', 'swap', 'ccx', 'ccz', 'cswap', 'c3x', 'c4x']);
const PAIRS: Readonly<Record<string, string>> = { s: 'sdg', sdg: 's', t: 'tdg', tdg: 't', sx: 'sxdg', sxdg: 'sx' };
const NEGATE_ALL = new Set(['rx', 'ry', 'rz', 'p', 'u1', 'crx', 'cry', 'crz', 'cp', 'cu1', 'rxx', 'ryy', 'rzz', 'u0']);

/** `inv @ name(params)` as a catalogue gate (exact, not only up to global phase), or undefined. */
export function applyInv(name: string, params: readonly number[]): { name: string; params: number[] } | undefined {
  if (SELF_INVERSE.has(name)) return { name, params: [] };
  const pair = PAIRS[name];
  if (pair !== undefined) return { name: pair, params: [] };
  if (NEGATE_ALL.has(name)) return { name, params: params.map((x) => -x) };
  const [a = 0, b = 0, c = 0, d = 0] = params;
  switch (name) {
    case 'u':
    case 'u3':
    case 'cu3':
      return { name, params: [-a, -c, -b] };
    case 'u2':
      return { name: 'u3', params: [-Math.PI / 2, -b, -a] };
    case 'cu':
      return { name, params: [-a, -c, -b, -d] };
    default:
      return undefined;
  }
}
