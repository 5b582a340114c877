import type { ErrorDetail } from './app-error.js';

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
 * Every string (values and property names) in a parsed request part that cannot be stored.
 * Iterative, so no nesting can overflow the stack (JSON bodies are depth-limited before parsing
 * anyway, by src/http/plugins/json-body.ts); each node is visited once: linear in the body size.
 */
export function unsafeTextDetails(value: unknown, where: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '' }];
  while (stack.length > 0 && out.length < MAX_PROBLEMS) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const p = textProblem(v, where, path);
      if (p !== null) out.push(p);
      continue;
    }
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}/${i}` });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      const at = `${path}/${escapePointer(k)}`;
      const p = textProblem(k, where, at);
      if (p !== null) out.push({ ...p, message: `property name ${p.message}` });
      stack.push({ v: (v as Record<string, unknown>)[k], path: at });
    }
  }
  return out;
}
