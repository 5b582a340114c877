/**
 * A first, iterative pass over a raw circuit input, before anything else looks at it.
 * Everything after it (the parsers, `toWire`, response serialisation, jsonb storage of job
 * requests) may recurse over the value or hand its strings to the database, so the pass
 * bounds nesting and the size of `metadata`, and refuses strings that PostgreSQL cannot
 * store (NUL) or that are not Unicode (lone surrogates) — each with the path where it is.
 */

/** Containers from the circuit object itself (level 1) down; `metadata` content starts at level 3. */
export const MAX_CIRCUIT_NESTING = 16;
/** `metadata` as JSON text, in UTF-16 code units (what `JSON.stringify(metadata).length` gives). */
export const MAX_METADATA_CHARS = 65_536;

export interface ScanProblem {
  readonly path: string;
  readonly code: 'TOO_DEEPLY_NESTED' | 'METADATA_TOO_LARGE' | 'INVALID_CHARACTER';
  readonly message: string;
}

const MAX_REPORTED = 20;
// NUL, a high surrogate not followed by a low one, a low surrogate not preceded by a high one.
const BAD_CHAR = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function badCharMessage(s: string, what: string): string | undefined {
  const m = BAD_CHAR.exec(s);
  if (m === null) return undefined;
  const c = m[0].charCodeAt(0);
  const name = c === 0 ? 'a NUL character (\\u0000)' : `a lone surrogate (\\u${c.toString(16)})`;
  return `${what} contains ${name} at position ${m.index}; text must be valid Unicode without NUL`;
}

interface Frame {
  readonly value: object;
  readonly level: number;
  readonly parent: Frame | undefined;
  readonly key: string;
}

/** Paths are built only for problems: most circuits are arrays of numbers, scanned without allocating. */
function pathOf(frame: Frame | undefined, key?: string): string {
  const parts: string[] = key === undefined ? [] : [escapePointer(key)];
  for (let f = frame; f !== undefined && f.parent !== undefined; f = f.parent) parts.push(escapePointer(f.key));
  return parts.length === 0 ? '' : `/${parts.reverse().join('/')}`;
}

/** Problems found, at most a few dozen (a hostile input could have millions); empty when the input is fine. */
export function scanCircuitInput(input: unknown): ScanProblem[] {
  const out: ScanProblem[] = [];
  const visit = (value: unknown, parent: Frame | undefined, key: string, stack: Frame[]): void => {
    if (typeof value === 'string') {
      const msg = badCharMessage(value, 'the string');
      if (msg !== undefined) out.push({ path: pathOf(parent, key), code: 'INVALID_CHARACTER', message: msg });
    } else if (typeof value === 'object' && value !== null) {
      const level = (parent?.level ?? 0) + 1;
      const frame: Frame = { value, level, parent, key };
      if (level > MAX_CIRCUIT_NESTING) {
        out.push({ path: pathOf(frame), code: 'TOO_DEEPLY_NESTED', message: `a circuit may nest objects and arrays at most ${MAX_CIRCUIT_NESTING} levels deep (metadata included)` });
      } else {
        stack.push(frame);
      }
    }
  };
  const stack: Frame[] = [];
  visit(input, undefined, '', stack);
  while (stack.length > 0 && out.length < MAX_REPORTED) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && out.length < MAX_REPORTED; i++) {
        const el: unknown = v[i];
        if (typeof el === 'string' || (typeof el === 'object' && el !== null)) visit(el, frame, String(i), stack);
      }
      continue;
    }
    for (const [k, child] of Object.entries(v)) {
      const msg = badCharMessage(k, 'the property name');
      if (msg !== undefined) out.push({ path: pathOf(frame, k), code: 'INVALID_CHARACTER', message: msg });
      visit(child, frame, k, stack);
    }
  }
  if (out.length > 0) return out;
  // Depth is bounded now, so stringifying cannot overflow the stack.
  const metadata = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>)['metadata'] : undefined;
  if (metadata !== undefined) {
    const chars = JSON.stringify(metadata)?.length ?? 0;
    if (chars > MAX_METADATA_CHARS) {
      out.push({ path: '/metadata', code: 'METADATA_TOO_LARGE', message: `'metadata' is ${chars} characters as JSON; at most ${MAX_METADATA_CHARS} are accepted` });
    }
  }
  return out;
}
