/**
 * docs/configuration.md must list exactly the environment variables the code reads, with the
 * integer defaults and ranges the code applies; README's core table must agree with it.
 *
 * How variables are found under src/ (the forms this code base uses):
 *   env['X'] / env.X / process.env['X'] / config.env['X']       direct reads
 *   int(env, 'X', …), opt(config.env, 'X'), flag(…), optUrl(…)     helper calls: first argument an
 *                                                                  env record, second a literal name
 *   const { X } = env                                               destructuring
 *   for (const k of ['X', 'Y']) … env[k]                            dynamic reads over a literal list
 * A dynamic read `env[k]` that is none of these (k a helper's name parameter, or a listed loop
 * variable) fails the test, so a new way of reading cannot slip past silently.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const NAME = '[A-Z][A-Z0-9_]*';
const ENV = String.raw`\b(?:[\w$]+\.)*env`; // env, config.env, app.config.env, process.env

/** JOBS_PORT's and METRICS_PORT's int() defaults are placeholders: each is parsed only when set (unset = no listener). */
const PLACEHOLDER_DEFAULTS = new Set(['JOBS_PORT', 'METRICS_PORT']);

interface IntRead {
  readonly name: string;
  readonly def: number | undefined;
  readonly min: number | undefined;
  readonly max: number | undefined;
  readonly where: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|mts|js)$/.test(e.name) ? [p] : [];
  });
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** The call's arguments split at top-level commas, starting right after `(`. */
function callArgs(text: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = open; i < text.length; i++) {
    const ch = text[i] as string;
    if ('([{'.includes(ch)) depth++;
    if (')]}'.includes(ch)) {
      if (depth === 0) break;
      depth--;
    }
    if (ch === ',' && depth === 0) {
      args.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  args.push(cur.trim());
  return args;
}

/** Evaluates `60 * 60 * 24`, `100_000`, or a same-file `const X = <number expr>`; undefined otherwise. */
function evalInt(expr: string, file: string, seen = 0): number | undefined {
  const resolved = expr.replace(/\b[A-Za-z_$][\w$]*\b/g, (id) => {
    const m = new RegExp(String.raw`\bconst\s+${id}\s*=\s*([^;\n]+);`).exec(file);
    const v = m && seen < 5 ? evalInt(m[1] as string, file, seen + 1) : undefined;
    return v === undefined ? '?' : String(v);
  });
  const clean = resolved.replace(/(\d)_(?=\d)/g, '$1');
  if (!/^[\d\s+*()-]+$/.test(clean)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- only digits, spaces, + * - ( ) get here (checked just above)
  return Number(new Function(`return (${clean});`)());
}

function scanSources() {
  const read = new Map<string, string[]>();
  const ints: IntRead[] = [];
  const configErrorNames = new Set<string>();
  const unresolved: string[] = [];
  const add = (name: string, where: string) => read.set(name, [...(read.get(name) ?? []), where]);

  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const text = readFileSync(path, 'utf8');
    const rel = path.slice(ROOT.length);
    const at = (i: number) => `${rel}:${lineOf(text, i)}`;
    for (const m of text.matchAll(new RegExp(String.raw`${ENV}\s*(?:\?\.)?\[\s*(['"\`])(${NAME})\1\s*\]`, 'g'))) add(m[2] as string, at(m.index));
    for (const m of text.matchAll(new RegExp(String.raw`${ENV}\s*\??\.\s*(${NAME})\b`, 'g'))) add(m[1] as string, at(m.index));
    for (const m of text.matchAll(new RegExp(String.raw`\b([A-Za-z_$][\w$]*)\(\s*(?:[\w$]+\.)*env\s*,\s*(['"\`])(${NAME})\2`, 'g'))) {
      const name = m[3] as string;
      add(name, at(m.index));
      if (m[1] === 'int') {
        const [, , def, min, max] = callArgs(text, m.index + m[0].indexOf('(') + 1);
        const ev = (x: string | undefined) => (x === undefined ? undefined : evalInt(x, text));
        ints.push({ name, def: ev(def), min: ev(min), max: ev(max), where: at(m.index) });
      }
    }
    for (const m of text.matchAll(new RegExp(String.raw`\{([^{}]*)\}\s*=\s*${ENV}\b`, 'g'))) {
      for (const n of (m[1] as string).matchAll(new RegExp(String.raw`(?:^|[\s,])(${NAME})\s*(?=[:,=]|$)`, 'g'))) add(n[1] as string, at(m.index));
    }
    for (const m of text.matchAll(new RegExp(String.raw`${ENV}\s*(?:\?\.)?\[\s*([A-Za-z_$][\w$]*)\s*\]`, 'g'))) {
      const id = m[1] as string;
      // A helper `function f(env: …, <id>: string, …)`: its callers are found by the helper pattern.
      if (new RegExp(String.raw`\(\s*env\s*:[^,()]*(?:\([^()]*\)[^,()]*)*,\s*${id}\s*:`).test(text)) continue;
      const loop = new RegExp(String.raw`for\s*\(\s*const\s+${id}\s+of\s+(?:\[([^\]]*)\]|([A-Za-z_$][\w$]*))`).exec(text);
      const list = loop?.[1] ?? (loop?.[2] ? new RegExp(String.raw`\bconst\s+${loop[2]}\b[^=]*=\s*\[([^\]]*)\]`).exec(text)?.[1] : undefined);
      const names = list === undefined ? [] : [...list.matchAll(new RegExp(String.raw`(['"\`])(${NAME})\1`, 'g'))].map((x) => x[2] as string);
      if (names.length === 0) unresolved.push(`${at(m.index)} env[${id}]`);
      for (const n of names) add(n, at(m.index));
    }
    for (const m of text.matchAll(new RegExp(String.raw`new\s+ConfigError\(\s*(['"\`])(${NAME})\1`, 'g'))) configErrorNames.add(m[2] as string);
  }
  return { read, ints, configErrorNames, unresolved };
}

/** Table rows whose first cell names variables: names, then the remaining cells. */
function tableRows(markdown: string): Array<{ names: string[]; cells: string[] }> {
  const rows: Array<{ names: string[]; cells: string[] }> = [];
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
    const first = cells[0] ?? '';
    if (!new RegExp(String.raw`^\`${NAME}\`(\s*/\s*\`${NAME}\`)*$`).test(first)) continue;
    rows.push({ names: [...first.matchAll(new RegExp(`\`(${NAME})\``, 'g'))].map((x) => x[1] as string), cells: cells.slice(1) });
  }
  return rows;
}

const hasNumber = (cell: string, n: number) => new RegExp(String.raw`(?<![\d.])${n}(?![\d.])`).test(cell);
const hasRange = (cell: string, min: number, max: number) => new RegExp(String.raw`(?<![\d.])${min}\s*[–-]\s*${max}(?![\d.])`).test(cell);

describe('configuration documentation', () => {
  const src = scanSources();
  const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const readmeConfig = /^## Configuration\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const docRows = tableRows(doc);
  const documented = new Map(docRows.flatMap((r) => r.names.map((n) => [n, r.cells] as const)));
  const readmeRows = tableRows(readmeConfig);

  it('finds the reads it is meant to find (the scanner itself works)', () => {
    expect(src.unresolved).toEqual([]);
    for (const n of ['PORT', 'TRUST_PROXY', 'QRAIL_URL', 'STRIPE_SECRET_KEY', 'IONQ_API_KEY', 'COUPLING_TIME_BUDGET_MS', 'JOBS_LEASE_MS', 'TTS_ENGINE', 'ESPEAK_DATA_PATH']) {
      expect(src.read.has(n), n).toBe(true);
    }
    expect(src.ints.length).toBeGreaterThan(40);
    // Every variable a ConfigError names must be one the scanner saw being read.
    expect([...src.configErrorNames].filter((n) => !src.read.has(n))).toEqual([]);
    expect(readmeRows.length).toBeGreaterThan(10);
  });

  it('documents every variable read under src/ in docs/configuration.md', () => {
    const missing = [...src.read].filter(([n]) => !documented.has(n)).map(([n, where]) => `${n} (${where[0]})`);
    expect(missing).toEqual([]);
  });

  it('documents no variable that nothing reads (no stale docs)', () => {
    const stale = [...documented.keys(), ...readmeRows.flatMap((r) => r.names)].filter((n) => !src.read.has(n));
    expect(stale).toEqual([]);
    // Names in backticks elsewhere on the page are documented variables or error/failure codes.
    const codes = new Set(
      sourceFiles(join(ROOT, 'src'))
        .filter((p) => p.endsWith('error-codes.ts'))
        .flatMap((p) => readFileSync(p, 'utf8').match(/\b[A-Z][A-Z0-9_]+\b/g) ?? []),
    );
    const spans = [...doc.matchAll(/`([^`\n]+)`/g)].flatMap((m) => [...(m[1] as string).matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((x) => x[0]));
    expect([...new Set(spans)].filter((n) => !documented.has(n) && !codes.has(n))).toEqual([]);
  });

  it('lists each variable once', () => {
    const names = docRows.flatMap((r) => r.names);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('gives the integer defaults and ranges the code applies', () => {
    const wrong: string[] = [];
    for (const r of src.ints) {
      const [def = '', allowed = ''] = documented.get(r.name) ?? [];
      if (r.def !== undefined && !PLACEHOLDER_DEFAULTS.has(r.name) && !hasNumber(def, r.def)) wrong.push(`${r.name}: default ${r.def} (${r.where}), doc says "${def}"`);
      if (r.min !== undefined && r.max !== undefined && !hasRange(allowed, r.min, r.max)) wrong.push(`${r.name}: range ${r.min}–${r.max} (${r.where}), doc says "${allowed}"`);
    }
    expect(wrong).toEqual([]);
  });

  it("keeps README's core table consistent with the page", () => {
    const wrong: string[] = [];
    for (const row of readmeRows) {
      const defaults = (row.cells[0] ?? '').split(' / ');
      row.names.forEach((n, i) => {
        if (!documented.has(n)) wrong.push(`${n} is in README but not in docs/configuration.md`);
        const r = src.ints.find((x) => x.name === n);
        const d = defaults.length === row.names.length ? (defaults[i] ?? '') : (row.cells[0] ?? '');
        if (r?.def !== undefined && !PLACEHOLDER_DEFAULTS.has(n) && !hasNumber(d, r.def)) wrong.push(`${n}: README default "${d}", code ${r.def}`);
      });
    }
    expect(wrong).toEqual([]);
    expect(readmeConfig).toContain('docs/configuration.md');
  });
});
