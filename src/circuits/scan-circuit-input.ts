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

/** Problems found, at most a few dozen (a hostile input could have millions); empty when the input is fine. */
export function scanCircuitInput(input: unknown): ScanProblem[] {
  const out: ScanProblem[] = [];
  const stack: { value: unknown; path: string; level: number }[] = [{ value: input, path: '', level: 0 }];
  while (stack.length > 0 && out.length < MAX_REPORTED) {
    const { value, path, level } = stack.pop()!;
    if (typeof value === 'string') {
      const msg = badCharMessage(value, 'the string');
      if (msg !== undefined) out.push({ path, code: 'INVALID_CHARACTER', message: msg });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (level + 1 > MAX_CIRCUIT_NESTING) {
      out.push({ path, code: 'TOO_DEEPLY_NESTED', message: `a circuit may nest objects and arrays at most ${MAX_CIRCUIT_NESTING} levels deep (metadata included)` });
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}/${i}`, level: level + 1 });
      continue;
    }
    for (const [k, v] of Object.entries(value)) {
      const childPath = `${path}/${escapePointer(k)}`;
      const msg = badCharMessage(k, 'the property name');
      if (msg !== undefined) out.push({ path: childPath, code: 'INVALID_CHARACTER', message: msg });
      stack.push({ value: v, path: childPath, level: level + 1 });
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
