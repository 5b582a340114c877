/**
 * qelib1.inc's body for `c3sqrtx` is the 3-controlled √X† (its Gray code of cu1(±π/8) starts with
 * −π/8), while the catalogue's c3sqrtx — and every consumer's matrix — is the 3-controlled √X. A file
 * that defines c3sqrtx keeps the catalogue meaning (as for every catalogue gate), so a body that says
 * otherwise gets a warning (docs/decisions/circuits-c3sqrtx-body.md).
 */

/** One call of a gate body, its qubit arguments as indices into the definition's qubit list. */
export interface BodyCall {
  readonly name: string;
  readonly params: readonly number[];
  readonly args: readonly number[];
}

/**
 * For a body of h on the target, cu1/cp(θ) from a control onto the target and cx between controls
 * (qelib1.inc's shape): the angle Σ with the body = controlled-(H·P(Σ)·H) on all-ones controls, when
 * it is a controlled gate at all; undefined for any other shape (nothing is claimed then).
 */
export function controlledTargetPhase(calls: readonly BodyCall[], arity: number): number | undefined {
  const target = arity - 1;
  const masks = Array.from({ length: target }, (_, i) => 1 << i);
  const terms: [number, number][] = []; // [parity mask over the controls, angle]
  let hadamards = 0;
  for (const c of calls) {
    if (c.name === 'h' && c.args.length === 1 && c.args[0] === target) hadamards++;
    else if ((c.name === 'cu1' || c.name === 'cp') && c.args.length === 2 && c.args[1] === target && c.args[0]! < target && hadamards % 2 === 1) {
      terms.push([masks[c.args[0]!]!, c.params[0]!]);
    } else if (c.name === 'cx' && c.args.length === 2 && c.args[0]! < target && c.args[1]! < target) {
      masks[c.args[1]!]! ^= masks[c.args[0]!]!;
    } else return undefined;
  }
  if (hadamards % 2 !== 0 || masks.some((m, i) => m !== 1 << i)) return undefined;
  const phaseFor = (x: number) => terms.reduce((s, [m, a]) => (popcount(m & x) % 2 === 1 ? s + a : s), 0);
  const full = (1 << target) - 1;
  // a controlled gate: no phase on the target unless every control is 1
  for (let x = 1; x < full; x++) if (Math.abs(Math.sin(phaseFor(x) / 2)) > 1e-9) return undefined;
  return phaseFor(full);
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x; v; v &= v - 1) n++;
  return n;
}

/** The warning for a c3sqrtx definition whose body is not the catalogue gate, or undefined. */
export function c3sqrtxBodyWarning(calls: readonly BodyCall[]): string | undefined {
  const sigma = controlledTargetPhase(calls, 4);
  if (sigma === undefined || Math.abs(Math.sin((sigma - Math.PI / 2) / 2)) < 1e-9) return undefined;
  const dagger = Math.abs(Math.sin((sigma + Math.PI / 2) / 2)) < 1e-9;
  return dagger
    ? "gate c3sqrtx: the file's body (qelib1.inc's) is the 3-controlled √X†; c3sqrtx means the 3-controlled √X here, and that meaning is used, not the body"
    : "gate c3sqrtx: the file's body is not the 3-controlled √X; c3sqrtx means the 3-controlled √X here, and that meaning is used, not the body";
}
