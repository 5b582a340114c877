/** Parities over F₂ as the passes hold them: sorted lists of variable numbers, or bigint masks. */

/** The symmetric difference of two ascending lists (the XOR of two parities). */
export function xorSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) out.push(a[i++]!);
    else if (a[i]! > b[j]!) out.push(b[j++]!);
    else {
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Indices of the set bits of m (≥ 0), ascending: one native conversion to hex, not a shift per word (a new bigint each). */
export function bitsOf(m: bigint): number[] {
  const out: number[] = [];
  const hex = m.toString(16);
  for (let i = hex.length - 1, base = 0; i >= 0; i--, base += 4) {
    const d = hex.charCodeAt(i);
    const w = d <= 57 ? d - 48 : d - 87; // '0'–'9', 'a'–'f'
    if (w & 1) out.push(base);
    if (w & 2) out.push(base + 1);
    if (w & 4) out.push(base + 2);
    if (w & 8) out.push(base + 3);
  }
  return out;
}
