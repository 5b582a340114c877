import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_TYPES_FILE, generateClientTypes } from '../../scripts/client-generate.js';

/**
 * The client's generated types must be the document's: regenerated in memory from the app's
 * OpenAPI document and compared with the committed file. A route schema changed without
 * `npm run client:generate` fails here (and so in CI).
 */
describe('packages/client/src/generated/openapi.ts', () => {
  it('is what openapi-typescript generates from the current OpenAPI document', async () => {
    const expected = await generateClientTypes();
    const committed = readFileSync(GENERATED_TYPES_FILE, 'utf8');
    if (committed === expected) return;
    const a = committed.split('\n');
    const b = expected.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    const at = line === -1 ? Math.min(a.length, b.length) : line;
    expect.fail(
      `The committed client types are out of date with the OpenAPI document: run \`npm run client:generate\` and commit packages/client/src/generated/openapi.ts.\n` +
        `First difference at line ${at + 1}:\n  committed: ${a[at] ?? '(end of file)'}\n  generated: ${b[at] ?? '(end of file)'}`,
    );
  });
});
