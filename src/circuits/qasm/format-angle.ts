/** Formats an angle so that OpenQASM import reads back exactly the same double. */
export function formatAngle(x: number): string {
  if (x === 0) return '0';
  // The denominators of the angles people write (pi/3, pi/6, 5*pi/12, pi/16), each multiple up to ±4π.
  for (const d of [1, 2, 3, 4, 6, 8, 12, 16]) {
    for (let k = -4 * d; k <= 4 * d; k++) {
      if (k === 0) continue;
      // Mirrors the importer's evaluation order: `-pi/d` is -(pi/d), `k*pi/d` is (k*pi)/d.
      const v = k === 1 ? Math.PI / d : k === -1 ? -(Math.PI / d) : (k * Math.PI) / d;
      if (v !== x) continue;
      const num = k === 1 ? 'pi' : k === -1 ? '-pi' : `${k}*pi`;
      return d === 1 ? num : `${num}/${d}`;
    }
  }
  return String(x);
}
