/**
 * docs/api-guide.md as data: its examples (a fenced ```http request followed by a fenced ```http
 * answer), the abbreviated-JSON patterns of the answers, and the `{{name}}` captures that carry
 * values from one answer to later requests. Used by the guide's replay test and by the test that
 * checks the guide's real answers against the OpenAPI document.
 */

export interface Example {
  readonly line: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly status: number;
  readonly expectHeaders: Record<string, string>;
  readonly expectBody: string;
}

// ---- the markdown ------------------------------------------------------------------

function splitBlock(text: string): { head: string[]; body: string } {
  const lines = text.split('\n');
  const blank = lines.findIndex((l) => l.trim() === '');
  return blank < 0
    ? { head: lines, body: '' }
    : {
        head: lines.slice(0, blank),
        body: lines
          .slice(blank + 1)
          .join('\n')
          .trim(),
      };
}

function headerMap(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i <= 0) throw new Error(`not a header line: ${l}`);
    out[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return out;
}

export function parseGuide(markdown: string): Example[] {
  const blocks: { line: number; lang: string; text: string }[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(markdown); m !== null; m = re.exec(markdown)) {
    blocks.push({ line: markdown.slice(0, m.index).split('\n').length, lang: m[1] ?? '', text: m[2] ?? '' });
  }
  const examples: Example[] = [];
  for (let i = 0; i < blocks.length; i += 1) {
    const b = blocks[i]!;
    if (b.lang !== 'http' || !/^(GET|POST|PATCH|PUT|DELETE) \//.test(b.text)) continue;
    const answer = blocks[i + 1];
    if (answer?.lang !== 'http' || !answer.text.startsWith('HTTP/')) throw new Error(`docs/api-guide.md:${b.line}: a request without an answer block after it`);
    const req = splitBlock(b.text);
    const res = splitBlock(answer.text);
    const [method, path] = req.head[0]!.split(' ');
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(res.head[0]!)?.[1]);
    examples.push({
      line: b.line,
      method: method!,
      path: path!,
      headers: headerMap(req.head.slice(1)),
      body: req.body,
      status,
      expectHeaders: headerMap(res.head.slice(1)),
      expectBody: res.body,
    });
    i += 1;
  }
  return examples;
}

// ---- abbreviated JSON ----------------------------------------------------------------

export const ANY = Symbol('…');
export type Pattern = typeof ANY | null | boolean | number | string | Pattern[] | { [k: string]: Pattern };

/** JSON where `…` may stand for a value, array elements or object members. */
export function parsePattern(text: string): Pattern {
  let p = 0;
  const ws = () => {
    while (p < text.length && /\s/.test(text[p]!)) p += 1;
  };
  const err = (what: string): never => {
    throw new Error(`${what} at offset ${p}: ${JSON.stringify(text.slice(p, p + 30))}`);
  };
  const value = (): Pattern => {
    ws();
    const c = text[p];
    if (c === '…') {
      p += 1;
      return ANY;
    }
    if (c === '{') {
      p += 1;
      const o: { [k: string]: Pattern } = {};
      ws();
      if (text[p] === '}') {
        p += 1;
        return o;
      }
      for (;;) {
        ws();
        if (text[p] === '…') p += 1;
        else {
          const k = value();
          if (typeof k !== 'string') err('object key expected');
          ws();
          if (text[p] !== ':') err('":" expected');
          p += 1;
          o[k as string] = value();
        }
        ws();
        if (text[p] === ',') {
          p += 1;
          continue;
        }
        if (text[p] === '}') {
          p += 1;
          return o;
        }
        err('"," or "}" expected');
      }
    }
    if (c === '[') {
      p += 1;
      const a: Pattern[] = [];
      ws();
      if (text[p] === ']') {
        p += 1;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[p] === ',') {
          p += 1;
          continue;
        }
        if (text[p] === ']') {
          p += 1;
          return a;
        }
        err('"," or "]" expected');
      }
    }
    const m = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(p));
    if (m === null) return err('value expected');
    p += m[0].length;
    return JSON.parse(m[0]) as Pattern;
  };
  const v = value();
  ws();
  if (p !== text.length) err('end expected');
  return v;
}

/** Where `actual` does not match `pattern` (null when it does); binds `{{name}}` captures. */
export function mismatch(pattern: Pattern, actual: unknown, path: string, vars: Map<string, string>): string | null {
  if (pattern === ANY) return null;
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 200);
  if (typeof pattern === 'string') {
    const cap = /^\{\{(\w+)\}\}$/.exec(pattern);
    if (cap !== null) {
      if (typeof actual !== 'string' && typeof actual !== 'number') return `${path}: nothing to capture as ${pattern} (got ${show(actual)})`;
      vars.set(cap[1]!, String(actual));
      return null;
    }
    if (typeof actual !== 'string') return `${path}: expected ${show(pattern)}, got ${show(actual)}`;
    return stringMatches(pattern, actual) ? null : `${path}: expected ${show(pattern)}, got ${show(actual)}`;
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${show(actual)}`;
    const items = pattern.filter((x) => x !== ANY);
    if (items.length === pattern.length) {
      if (actual.length !== items.length) return `${path}: expected ${items.length} element(s), got ${actual.length}: ${show(actual)}`;
      for (let i = 0; i < items.length; i += 1) {
        const r = mismatch(items[i]!, actual[i], `${path}/${i}`, vars);
        if (r !== null) return r;
      }
      return null;
    }
    // With `…`: the shown elements appear in this order, others may be around them.
    let j = 0;
    for (const [i, item] of items.entries()) {
      while (j < actual.length && mismatch(item, actual[j], '', new Map()) !== null) j += 1;
      if (j === actual.length) return `${path}: no element matches shown element ${i} ${show(item)} (in order)`;
      mismatch(item, actual[j], `${path}/${j}`, vars);
      j += 1;
    }
    return null;
  }
  if (pattern !== null && typeof pattern === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${show(actual)}`;
    for (const [k, v] of Object.entries(pattern)) {
      if (!(k in actual)) return `${path}: missing member "${k}"`;
      const r = mismatch(v, (actual as Record<string, unknown>)[k], `${path}/${k}`, vars);
      if (r !== null) return r;
    }
    return null;
  }
  return Object.is(pattern, actual) ? null : `${path}: expected ${show(pattern)}, got ${show(actual)}`;
}

export function stringMatches(pattern: string, actual: string): boolean {
  const pieces = pattern.split('…');
  if (pieces.length === 1) return pattern === actual;
  if (!actual.startsWith(pieces[0]!) || !actual.endsWith(pieces.at(-1)!)) return false;
  let at = pieces[0]!.length;
  for (const piece of pieces.slice(1, -1)) {
    const k = actual.indexOf(piece, at);
    if (k < 0) return false;
    at = k + piece.length;
  }
  return at <= actual.length - pieces.at(-1)!.length;
}

// ---- replay --------------------------------------------------------------------------

export function substitute(text: string, vars: Map<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => {
    const v = vars.get(name);
    if (v === undefined) throw new Error(`{{${name}}} is used before an answer captured it`);
    return v;
  });
}
