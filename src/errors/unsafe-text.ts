import type { ErrorDetail } from './app-error.js';

/** Deepest nesting of arrays/objects accepted in a request (the circuit formats need about 6). */
export const JSON_MAX_DEPTH = 64;
/** Problems reported per request; the first few say enough. */
const MAX_PROBLEMS = 10;

// U+0000, or a UTF-16 surrogate without its partner: PostgreSQL text and jsonb refuse both
// (and a lone surrogate is not Unicode, so it cannot be stored or echoed faithfully either).
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function textProblem(s: string, where: string, path: string): ErrorDetail | null {
  const m = UNSAFE.exec(s);
  if (m === null) return null;
  return m[0] === '\u0000'
    ? { in: where, path, code: 'NUL_CHARACTER', message: 'contains U+0000 (NUL), which is not accepted in text' }
    : { in: where, path, code: 'LONE_SURROGATE', message: 'contains an unpaired UTF-16 surrogate (not valid Unicode)' };
}

/**
 * Every string (values and property names) in a parsed request part that cannot be stored,
 * and every array/object nested deeper than `maxDepth`. Iterative, so that no nesting can
 * overflow the stack; each node is visited once, so the cost is linear in the body size.
 */
export function unsafeTextDetails(value: unknown, where: string, maxDepth = JSON_MAX_DEPTH): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 0 }];
  while (stack.length > 0 && out.length < MAX_PROBLEMS) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const p = textProblem(v, where, path);
      if (p !== null) out.push(p);
      continue;
    }
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) continue;
    if (depth >= maxDepth) {
      out.push({ in: where, path, code: 'TOO_DEEP', message: `nests arrays/objects deeper than ${maxDepth} levels` });
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}/${i}`, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      const at = `${path}/${escapePointer(k)}`;
      const p = textProblem(k, where, at);
      if (p !== null) out.push({ ...p, message: `property name ${p.message}` });
      stack.push({ v: (v as Record<string, unknown>)[k], path: at, depth: depth + 1 });
    }
  }
  return out;
}
