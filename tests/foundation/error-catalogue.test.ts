import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.js';

describe('error catalogue', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map<string, number>();
  for (const m of doc.matchAll(/^\|\s*([A-Z][A-Z0-9_]+)\s*\|\s*(\d{3})\s*\|/gm)) rows.set(m[1] as string, Number(m[2]));

  it('has unique SCREAMING_SNAKE codes', () => {
    const codes = ERROR_CATALOGUE.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of codes) expect(c).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });

  it('documents every code with its status in docs/errors.md', () => {
    const missing = ERROR_CATALOGUE.filter((c) => rows.get(c.code) !== c.status).map((c) => `${c.code} (${c.status})`);
    expect(missing).toEqual([]);
  });
});
