import fc from 'fast-check';

/**
 * Request generators for the OpenAPI-driven fuzz test: values that follow an operation's
 * schema (so requests get past validation into the handlers), values just outside it, and
 * values a hostile client would send (huge, deep, NUL bytes, lone surrogates, wrong types).
 */
export type Schema = Record<string, unknown>;

export interface SchemaContext {
  /** Resolves `$ref`s into `components.schemas`. */
  readonly resolve: (ref: string) => Schema | undefined;
  /** Circuits for properties named `circuit`. */
  readonly circuits: fc.Arbitrary<unknown>;
  /** Hostile: values outside the schema now and then at every level; otherwise only values it allows. */
  readonly hostile: boolean;
  /** Values that name something real (device ids), by property name, so valid requests get past lookups. */
  readonly known?: Readonly<Record<string, readonly string[]>>;
}

/** Properties that hold a circuit in some request. */
const CIRCUIT_PROPERTIES = new Set(['circuit', 'before', 'after']);

const NASTY_STRINGS = [
  '',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '%00',
  '../../etc/passwd',
  'toString',
  '__proto__',
  'constructor',
  '1e309',
  '-0',
  '😀'.repeat(40),
  ' ',
  'null',
  "'; DROP TABLE users; --",
  'A'.repeat(10_000),
];

const NASTY_NUMBERS = [0, -1, 1, -0, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 1e9, 999_999_999, 0.5, 4294967296, -2147483649];

/** Any JSON value, including deep and wide ones (bounded so the generator itself stays cheap). */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(...NASTY_NUMBERS) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((n) => deepArray(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6_000 }).map((n) => deepObject(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 150_000 }).map((n) => Array.from({ length: n }, (_, i) => `s${i % 7}`)) },
);

/**
 * JSON text spliced in verbatim by `toJsonText`: deeply nested values are built as text, since
 * building and serialising them as objects would overflow the test's own stack.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A short printable description of a generated request (for failure reports). */
export function describeValue(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof RawJson) return `<raw json: ${v.text.slice(0, 40)}… ${v.text.length} chars>`;
    if (typeof v === 'string' && v.length > 120) return `${v.slice(0, 120)}… (${v.length} chars)`;
    if (Array.isArray(v) && v.length > 20) return [...v.slice(0, 20), `… (${v.length} items)`];
    if (v instanceof Uint8Array) return `<${v.length} bytes: ${Buffer.from(v.subarray(0, 40)).toString('latin1')}>`;
    return v;
  });
  return text === undefined ? String(value) : text.slice(0, 1500);
}

export function deepArray(depth: number): RawJson {
  return new RawJson(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
}

export function deepObject(depth: number): RawJson {
  return new RawJson(`${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`);
}

/** JSON.stringify, with every RawJson replaced by its text. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const marker = `@@raw-${Math.random().toString(36).slice(2)}:`;
  const text =
    JSON.stringify(value, (_k, v: unknown) => {
      if (v instanceof RawJson) {
        raws.push(v.text);
        return `${marker}${raws.length - 1}`;
      }
      return v;
    }) ?? 'null';
  if (raws.length === 0) return text;
  return text.replace(new RegExp(`"${marker}(\\d+)"`, 'g'), (_m, i: string) => raws[Number(i)]!);
}

function stringFor(s: Schema): fc.Arbitrary<string> {
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as string[]));
  if (typeof s['const'] === 'string') return fc.constant(s['const']);
  const max = typeof s['maxLength'] === 'number' ? Math.min(s['maxLength'], 64) : 64;
  const min = typeof s['minLength'] === 'number' ? Math.min(s['minLength'], max) : 0;
  if (s['format'] === 'email') return fc.emailAddress();
  if (s['format'] === 'uuid') return fc.uuid();
  if (s['format'] === 'uri') return fc.webUrl();
  if (typeof s['pattern'] === 'string') {
    try {
      const re = new RegExp(s['pattern']);
      // Filtering on minLength would reject almost every draw of a pattern like `^[A-Z0-9 -]+$`
      // with minLength 16 (fast-check then spins); lengthening a draw keeps the generator total.
      return fc
        .stringMatching(re)
        .map((x) => reachMinLength(x, re, min))
        .filter((x) => x.length <= max + 64);
    } catch {
      // A pattern fast-check cannot invert: fall back to plain strings.
    }
  }
  return fc.string({ minLength: min, maxLength: max });
}

/** `x` lengthened to `min` by repeating its last character when that still matches `re`; else `x` as drawn. */
function reachMinLength(x: string, re: RegExp, min: number): string {
  const last = x.at(-1);
  if (x.length >= min || last === undefined) return x;
  const padded = x + last.repeat(min - x.length);
  return re.test(padded) ? padded : x;
}

function numberFor(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof s['minimum'] === 'number' ? s['minimum'] : -1_000_000;
  const max = typeof s['maximum'] === 'number' ? s['maximum'] : 1_000_000;
  if (integer) return fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/**
 * A value following `schema`, or (with some probability at every level) one that breaks it.
 * `depth` bounds the recursion of the generator, not of the values (anyJson can be deep).
 */
export function fromSchema(schema: Schema | undefined, ctx: SchemaContext, depth = 0, name = ''): fc.Arbitrary<unknown> {
  const valid = validFromSchema(schema, ctx, depth, name);
  return ctx.hostile ? fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: anyJson }) : valid;
}

function validFromSchema(schema: Schema | undefined, ctx: SchemaContext, depth: number, name: string): fc.Arbitrary<unknown> {
  if (CIRCUIT_PROPERTIES.has(name)) return ctx.circuits;
  const known = ctx.known?.[name];
  if (known !== undefined && known.length > 0) return ctx.hostile ? fc.oneof(fc.constantFrom(...known), stringFor(schema ?? {})) : fc.constantFrom(...known);
  if (schema === undefined || depth > 6) return ctx.hostile ? anyJson : fc.constant({});
  if (typeof schema['$ref'] === 'string') return fromSchema(ctx.resolve(schema['$ref']), ctx, depth + 1, name);
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = schema[k];
    if (Array.isArray(alts) && alts.length > 0) return fc.oneof(...(alts as Schema[]).map((a) => fromSchema(a, ctx, depth + 1, name)));
  }
  if (Array.isArray(schema['allOf']) && (schema['allOf'] as Schema[]).length > 0) return fromSchema((schema['allOf'] as Schema[])[0], ctx, depth + 1, name);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  if ('const' in schema) return fc.constant(schema['const']);
  const type = Array.isArray(schema['type']) ? (schema['type'] as string[])[0] : schema['type'];
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema['items'] as Schema | undefined;
      const max = Math.min(typeof schema['maxItems'] === 'number' ? schema['maxItems'] : 8, 8);
      const min = Math.min(typeof schema['minItems'] === 'number' ? schema['minItems'] : 0, max);
      return fc.array(fromSchema(items, ctx, depth + 1), { minLength: min, maxLength: max });
    }
    case 'object': {
      const props = (schema['properties'] ?? {}) as Record<string, Schema>;
      const required = new Set((schema['required'] ?? []) as string[]);
      const entries = Object.entries(props);
      if (entries.length === 0) return ctx.hostile ? fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 4 }) : fc.constant({});
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of entries) record[k] = fromSchema(v, ctx, depth + 1, k);
      const optional = entries.map(([k]) => k).filter((k) => !required.has(k));
      if (!ctx.hostile) return fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
      return fc
        .record(record, { requiredKeys: [...required].filter((k) => k in record) })
        .map((o) => o as unknown)
        .chain((o) =>
          // Now and then an extra property the schema does not allow, or one missing required key.
          fc.constantFrom<'as-is' | 'extra' | 'drop'>('as-is', 'as-is', 'as-is', 'extra', 'drop').map((mode) => {
            const copy: Record<string, unknown> = { ...(o as Record<string, unknown>) };
            if (mode === 'extra') copy['__proto__x'] = 'unexpected';
            if (mode === 'drop') delete copy[[...required][0] ?? optional[0] ?? ''];
            return copy;
          }),
        );
    }
    default:
      return ctx.hostile ? anyJson : fc.constant(null);
  }
}

/** Circuits: small valid ones in every input form, and (hostile) each hostile shape the issue names. */
export function circuitPool(hostile: boolean): fc.Arbitrary<unknown> {
  const bell = {
    schema: '0.2',
    num_qubits: 2,
    num_clbits: 2,
    gates: [
      { op: 'h', qubits: [0] },
      { op: 'cx', qubits: [0, 1] },
    ],
    measurements: [
      { qubit: 0, clbit: 0 },
      { qubit: 1, clbit: 1 },
    ],
  };
  const hostileCircuits: unknown[] = [
    { version: '0.1', qubits: 1_000_000_000, operations: [{ gate: 'measure', targets: [999_999_999] }] },
    { schema: '0.2', num_qubits: 1e9, gates: [], measurements: [] },
    { schema: '0.2', num_qubits: 2, num_clbits: 1e9, gates: [], measurements: [{ qubit: 0, clbit: 999_999_999 }] },
    { schema: '0.2', num_qubits: 2, gates: [{ op: 'h', qubits: [2 ** 31] }], measurements: [] },
    { schema: '0.2', num_qubits: 0, gates: [], measurements: [] },
    { format: 'qasm2', source: 'OPENQASM 2.0;' },
    { format: 'qasm3', source: 'OPENQASM 3.0;' },
    { format: 'qasm2', source: 'OPENQASM 2.0;\nqreg q[1000000000];\ncreg c[1000000000];\nmeasure q -> c;' },
    { format: 'qasm2', source: `OPENQASM 2.0;\nqreg q[1];\nrz(${'('.repeat(2000)}pi${')'.repeat(2000)}) q[0];` },
    { format: 'qasm2', source: `OPENQASM 2.0;\nqreg q[1];\nrz(${Array.from({ length: 20_000 }, () => 'pi').join('+')}) q[0];` },
    { format: 'qasm2', source: `OPENQASM 2.0;\nqreg q[1];\nrz(${'-'.repeat(5000)}pi) q[0];` },
    { ...bell, metadata: deepObject(5000) },
    { ...bell, metadata: { name: 'a\u0000b', note: '\ud800' } },
    { ...bell, metadata: { 'k\u0000': 1 } },
    { format: 'qasm3', source: 'OPENQASM 3.0;\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;' },
  ];
  const valid: unknown[] = [
    bell,
    { format: 'qasm2', source: 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;' },
    {
      version: '0.1',
      qubits: 2,
      operations: [
        { gate: 'h', targets: [0] },
        { gate: 'cx', controls: [0], targets: [1] },
        { gate: 'measure', targets: [0] },
      ],
    },
  ];
  if (!hostile) return fc.constantFrom(...valid);
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...valid) }, { weight: 3, arbitrary: fc.constantFrom(...hostileCircuits) }, { weight: 1, arbitrary: anyJson });
}

/** Path and query parameter text: plausible ids, and what a hostile client would put in a URL. */
export const urlText: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.constantFrom('%00', '%ZZ', '%ud800', '%ED%A0%80', 'a'.repeat(600), '..%2F..%2F', '-1', '1e309', 'null', '%E2%82%AC', '0x10'),
);
