/**
 * No import cycles under src/. The graph is built from the static `import … from` and
 * `export … from` declarations (parsed with the TypeScript compiler API, not regexes), with
 * `.js` specifiers resolved to the `.ts` file beside them. Type-only imports count: a cycle of
 * types is still two modules that cannot be understood, moved or tested one without the other.
 * Dynamic `import()` does not count: it is the deliberate way to load something lazily.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative specifiers of the static imports and re-exports of one file. */
function importSpecifiers(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, false, fileName.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const out: string[] = [];
  for (const st of sf.statements) {
    const spec = ts.isImportDeclaration(st) || ts.isExportDeclaration(st) ? st.moduleSpecifier : undefined;
    if (spec !== undefined && ts.isStringLiteral(spec) && spec.text.startsWith('.')) out.push(spec.text);
  }
  return out;
}

function resolveSpecifier(from: string, spec: string): string | undefined {
  const target = resolve(dirname(from), spec);
  for (const candidate of [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, join(target, 'index.ts')]) {
    if (existsSync(candidate) && candidate.startsWith(SRC)) return candidate;
  }
  return undefined;
}

function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps = importSpecifiers(f, readFileSync(f, 'utf8'))
      .map((s) => resolveSpecifier(f, s))
      .filter((x): x is string => x !== undefined);
    graph.set(f, [...new Set(deps)]);
  }
  return graph;
}

/** Tarjan's strongly connected components; every component of two or more files (or a self-import) holds a cycle. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp);
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** One concrete loop through a component, for the failure message: a → b → … → a. */
function loopIn(graph: ReadonlyMap<string, readonly string[]>, comp: readonly string[]): string[] {
  const inComp = new Set(comp);
  const start = [...comp].sort()[0] as string;
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift() as string;
    for (const w of graph.get(v) ?? []) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let x: string | undefined = v; x !== undefined && x !== start; x = prev.get(x)) path.splice(1, 0, x);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...comp];
}

const rel = (f: string) => relative(SRC, f).replaceAll('\\', '/');

describe('import graph of src/', () => {
  const graph = importGraph(sourceFiles(SRC));

  it('the graph is built from real imports (the scanner itself works)', () => {
    expect(graph.size).toBeGreaterThan(150);
    const app = graph.get(join(SRC, 'app.ts'))?.map(rel) ?? [];
    expect(app).toContain('composition/services.ts');
    // Type-only imports and re-exports are edges too.
    expect(importSpecifiers('x.ts', "import type { A } from './a.js';\nexport { B } from './b.js';\nexport * from './c.js';\nconst d = await import('./d.js');")).toEqual([
      './a.js',
      './b.js',
      './c.js',
    ]);
    const toy = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(cycles(toy).map((c) => [...c].sort())).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('has no cycles', () => {
    const found = cycles(graph).map((c) => {
      const loop = loopIn(graph, c);
      const rest = c
        .filter((f) => !loop.includes(f))
        .map(rel)
        .sort();
      return `${loop.map(rel).join(' → ')}${rest.length === 0 ? '' : ` (the knot also holds ${rest.join(', ')})`}`;
    });
    expect(found, `import cycles:\n${found.join('\n')}`).toEqual([]);
  });
});
