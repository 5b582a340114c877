import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, isOutsideStore, plugin } from '../../tools/lint/architecture.js';
import { knownOffenders, readRepoFile, sqlInSource, tsFilesUnder, type Finding } from './source-scan.ts';

// SQL text lives only under src/store (issue #18). Files listed in known-offenders.json are the
// debt on the day this landed; any other file with SQL fails here, naming file:line.

let scan: Finding[] | undefined;
const scanned = (): Finding[] =>
  (scan ??= tsFilesUnder('src')
    .filter(isOutsideStore)
    .flatMap((f) => sqlInSource(f, readRepoFile(f))));

/** Findings in files the allowlist does not excuse. */
const unexcused = (findings: readonly Finding[], allowed: readonly string[]): Finding[] => findings.filter((f) => !allowed.includes(f.file));

const SNIPPET = [
  "import type { Queryable } from '../store/db.js';",
  '// a comment quoting SELECT id FROM users is not SQL text',
  "const label = 'select a device from the list, then update its settings';",
  'export async function leak(q: Queryable, id: string, table: string) {',
  '  await q.query(',
  '    `UPDATE wallets',
  '        SET balance = 0 WHERE id = $1`, [id]);',
  '  return q.query(`SELECT ${table}.id',
  '    FROM ${table}`);',
  '}',
].join('\n');

describe('SQL only in src/store', () => {
  it('no file under src outside src/store holds SQL text, except the known offenders', () => {
    const fresh = unexcused(scanned(), knownOffenders().sql);
    expect(fresh.map((f) => `${f.file}:${f.line}  ${f.what}`)).toEqual([]);
  });

  it('every known offender still holds SQL, so the allowlist only shrinks', () => {
    const offending = new Set(scanned().map((f) => f.file));
    const stale = knownOffenders().sql.filter((f) => !offending.has(f));
    expect(stale, 'fixed: remove these from tests/architecture/known-offenders.json').toEqual([]);
  });

  it('finds each statement shape at its own line and ignores prose and comments', () => {
    const found = sqlInSource('src/jobs/leak.ts', SNIPPET);
    expect(found.map((f) => f.line)).toEqual([6, 8]);
    const shapes = [
      'SELECT id, name FROM users WHERE id = $1',
      'select ledger_capture($1, $2)',
      'INSERT INTO jobs (id) VALUES ($1)',
      'update billing_holds set status = $2',
      'DELETE FROM sessions WHERE expires_at < now()',
      'CREATE UNIQUE INDEX jobs_key ON jobs (key)',
      'ALTER TABLE jobs ADD COLUMN lease timestamptz',
      'DROP FUNCTION IF EXISTS f()',
      'WITH due AS (SELECT 1) UPDATE x SET y = 1',
    ];
    for (const s of shapes) expect(sqlInSource('src/x.ts', `export const q = ${JSON.stringify(s)};`), s).toHaveLength(1);
    const prose = ["'Choose with care as (the docs say) it cannot be undone'", "'Create a table of results'", "'delete the key from the cache'"];
    for (const p of prose) expect(sqlInSource('src/x.ts', `export const m = ${p};`), p).toEqual([]);
  });

  it('a new file with SQL is not excused by the allowlist of today (a listed one is, until it is fixed)', () => {
    const fresh = unexcused(sqlInSource('src/jobs/leak.ts', SNIPPET), knownOffenders().sql);
    expect(fresh.map((f) => `${f.file}:${f.line}`)).toEqual(['src/jobs/leak.ts:6', 'src/jobs/leak.ts:8']);
    expect(unexcused(sqlInSource('src/jobs/leak.ts', SNIPPET), ['src/jobs/leak.ts'])).toEqual([]);
  });

  it('the lint rule reports the same snippet outside src/store and nothing inside it', () => {
    const linter = new Linter({ configType: 'flat' });
    const config: Linter.Config[] = [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { architecture: plugin },
        rules: { 'architecture/no-sql-outside-store': ['error', { allow: knownOffenders().sql }] },
      },
    ];
    const at = (rel: string) => linter.verify(SNIPPET, config, { filename: `${REPO_ROOT}/${rel}` }).map((m) => [m.line, m.ruleId]);
    expect(at('src/jobs/leak.ts')).toEqual([
      [6, 'architecture/no-sql-outside-store'],
      [8, 'architecture/no-sql-outside-store'],
    ]);
    expect(at('src/store/jobs/leak-sql.ts')).toEqual([]);
  });
});
