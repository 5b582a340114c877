/**
 * A minimal WebAssembly binary emitter: exactly the instructions the SIMD kernels in
 * wasm-kernels.ts need (i32 index arithmetic, f64 and v128 loads/stores, f64x2 math,
 * loops). Writing the bytes here keeps the module reviewable as source and avoids a
 * build step or a binary blob in the repository.
 */
export type Code = readonly (number | Code)[];

const flat = (c: Code): number[] => (c as (number | Code)[]).flat(Infinity as 1) as number[];

export function uleb(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  let v = n | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export const I32 = 0x7f;
export const F64 = 0x7c;
export const V128 = 0x7b;

const simd = (op: number): number[] => [0xfd, ...uleb(op)];

/** Instructions (each returns its bytes). Memory arguments: align 3 (f64) / 4 (v128), offset 0. */
export const w = {
  get: (i: number): Code => [0x20, ...uleb(i)],
  set: (i: number): Code => [0x21, ...uleb(i)],
  tee: (i: number): Code => [0x22, ...uleb(i)],
  i32: (v: number): Code => [0x41, ...sleb(v)],
  add: [0x6a] as Code,
  sub: [0x6b] as Code,
  shl: [0x74] as Code,
  shrU: [0x76] as Code,
  ltU: [0x49] as Code,
  loadI32: [0x28, 2, 0] as Code,
  loadF64: [0x2b, 3, 0] as Code,
  storeF64: [0x39, 3, 0] as Code,
  loadV: [...simd(0x00), 4, 0] as Code,
  storeV: [...simd(0x0b), 4, 0] as Code,
  splat: simd(0x14) as Code,
  replaceLane1: [...simd(0x22), 1] as Code,
  /** Swaps the two f64 lanes of the vector on the stack. */
  swapLanes: (i: number): Code => [w.get(i), w.get(i), ...simd(0x0d), 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7],
  vadd: simd(240) as Code,
  vsub: simd(241) as Code,
  vmul: simd(242) as Code,
};

/** Sum of products a·x − … as f64x2: terms [sign, coefLocal, valueLocal]. */
export function dot(terms: readonly (readonly [1 | -1, number, number])[]): Code {
  const out: Code[] = [];
  terms.forEach(([sign, c, x], k) => {
    out.push([w.get(c), w.get(x), w.vmul]);
    if (k > 0) out.push(sign > 0 ? w.vadd : w.vsub);
  });
  return out;
}

/** do { body; i += step } while (i < end)  — callers guarantee at least one iteration. */
export function doWhile(i: number, step: Code, end: Code, body: Code): Code {
  return [0x03, 0x40, body, w.get(i), step, w.add, w.tee(i), end, w.ltU, 0x0d, 0, 0x0b];
}

export interface FnDef {
  readonly name: string;
  readonly params: readonly number[];
  readonly locals: readonly number[];
  readonly body: Code;
}

/** A module with one exported memory ("mem", `pages` initial) and the exported functions. */
export function moduleBytes(fns: readonly FnDef[], pages: number): Uint8Array {
  const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
  const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
  const name = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (ch) => ch.charCodeAt(0))];
  const types = vec(fns.map((f) => [0x60, ...uleb(f.params.length), ...f.params, 0]));
  const funcs = vec(fns.map((_, i) => uleb(i)));
  const memory = vec([[0x00, ...uleb(pages)]]);
  const exports = vec([[...name('mem'), 0x02, 0], ...fns.map((f, i) => [...name(f.name), 0x00, ...uleb(i)])]);
  const code = vec(
    fns.map((f) => {
      const locals = vec(f.locals.map((t) => [1, t]));
      const body = [...locals, ...flat(f.body), 0x0b];
      return [...uleb(body.length), ...body];
    }),
  );
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...section(1, types), ...section(3, funcs), ...section(5, memory), ...section(7, exports), ...section(10, code)]);
}
