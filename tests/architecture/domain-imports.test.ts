import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, forbiddenImport, isDomainFile, plugin } from '../../tools/lint/architecture.js';
import { forbiddenImportsInSource, knownOffenders, readRepoFile, tsFilesUnder, type Finding } from './source-scan.ts';

// Domain folders import no I/O library, nothing under src/store or src/http, and no domain's own
// SQL folder (issue #18). The same judgement runs in `npm run lint` (architecture/domain-imports).

let scan: Finding[] | undefined;
const scanned = (): Finding[] =>
  (scan ??= tsFilesUnder('src')
    .filter(isDomainFile)
    .flatMap((f) => forbiddenImportsInSource(f, readRepoFile(f))));

const unexcused = (findings: readonly Finding[], allow: Readonly<Record<string, readonly string[]>>): Finding[] => findings.filter((f) => !(allow[f.file] ?? []).includes(f.what));

const SNIPPET = [
  "import type { FastifyInstance } from 'fastify';",
  "import { readFile } from 'node:fs/promises';",
  "import { gates } from '../circuits/gates.js';",
  "export { openDatabase } from '../store/open-database.js';",
  "export const load = () => import('pg');",
  'export type App = FastifyInstance;',
  'export const r = readFile;',
  'export const g = gates;',
].join('\n');

describe('domain folders keep I/O and the store out', () => {
  it('no domain file imports a forbidden module, except the known offenders', () => {
    const fresh = unexcused(scanned(), knownOffenders().imports);
    expect(fresh.map((f) => `${f.file}:${f.line}  imports ${f.what}`)).toEqual([]);
  });

  it('every known offender still offends, so the allowlist only shrinks', () => {
    const seen = new Set(scanned().map((f) => `${f.file} -> ${f.what}`));
    const stale = Object.entries(knownOffenders().imports)
      .flatMap(([file, targets]) => targets.map((t) => `${file} -> ${t}`))
      .filter((e) => !seen.has(e));
    expect(stale, 'fixed: remove these from tests/architecture/known-offenders.json').toEqual([]);
  });

  it('classifies folders and targets', () => {
    expect(isDomainFile('src/optimization/passes/sabre.ts')).toBe(true);
    expect(isDomainFile('src/media/adapters/espeak-engine.ts')).toBe(false);
    expect(isDomainFile('src/execution/adapters/ionq-driver.ts')).toBe(false);
    expect(isDomainFile('src/store/db.ts')).toBe(false);
    expect(isDomainFile('src/http/app.ts')).toBe(false);
    expect(forbiddenImport('src/jobs/a.ts', 'node:child_process')).toBe('node:child_process');
    expect(forbiddenImport('src/jobs/a.ts', 'fs')).toBe('node:fs');
    expect(forbiddenImport('src/jobs/a.ts', '@fastify/swagger')).toBe('fastify');
    expect(forbiddenImport('src/jobs/a.ts', '@electric-sql/pglite/contrib/pgcrypto')).toBe('@electric-sql/pglite');
    expect(forbiddenImport('src/jobs/a.ts', 'ioredis')).toBe('ioredis');
    expect(forbiddenImport('src/jobs/a.ts', 'pgx')).toBeNull();
    expect(forbiddenImport('src/jobs/a.ts', 'node:crypto')).toBeNull();
    expect(forbiddenImport('src/jobs/deep/a.ts', '../../http/app-types.js')).toBe('src/http');
    expect(forbiddenImport('src/execution/a.ts', '../billing/store/ledger-sql.js')).toBe('src/billing/store');
    expect(forbiddenImport('src/billing/store/a-sql.ts', './b-sql.js')).toBeNull();
    expect(forbiddenImport('src/execution/a.ts', '../circuits/ir.js')).toBeNull();
    expect(forbiddenImport('src/store/a.ts', 'pg')).toBeNull();
  });

  it('a new offending import is not excused by the allowlist of today', () => {
    const found = forbiddenImportsInSource('src/coupling/leak.ts', SNIPPET);
    expect(unexcused(found, knownOffenders().imports).map((f) => `${f.line} ${f.what}`)).toEqual(['1 fastify', '2 node:fs', '4 src/store', '5 pg']);
    // An allowlisted file is excused only for the targets listed against it.
    expect(unexcused(found, { 'src/coupling/leak.ts': ['src/store', 'fastify'] }).map((f) => f.what)).toEqual(['node:fs', 'pg']);
  });

  it('the lint rule reports the same snippet in a domain folder and nothing at the edge', () => {
    const linter = new Linter({ configType: 'flat' });
    const config: Linter.Config[] = [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { architecture: plugin },
        rules: { 'architecture/domain-imports': ['error', { allow: knownOffenders().imports }] },
      },
    ];
    const lines = (rel: string) => linter.verify(SNIPPET, config, { filename: `${REPO_ROOT}/${rel}` }).map((m) => m.line);
    expect(lines('src/coupling/leak.ts')).toEqual([1, 2, 4, 5]);
    expect(lines('src/media/adapters/leak.ts')).toEqual([]);
    expect(lines('src/http/leak.ts')).toEqual([]);
  });
});
