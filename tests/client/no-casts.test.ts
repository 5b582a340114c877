import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The client flow test reads every answer through the generated types: no `as`, no `<T>x`, no
 * non-null `!`, no `any`. (It type-checks under the strict tsconfig with `npm run typecheck`.)
 */
const FILE = fileURLToPath(new URL('./flow.test.ts', import.meta.url));

function escapes(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node) || node.kind === ts.SyntaxKind.AnyKeyword) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`line ${line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('tests/client/flow.test.ts', () => {
  it('has no type assertions, non-null assertions or any', () => {
    const source = ts.createSourceFile(FILE, readFileSync(FILE, 'utf8'), ts.ScriptTarget.ES2022, true);
    expect(escapes(source)).toEqual([]);
    // The check itself sees them.
    expect(escapes(ts.createSourceFile('x.ts', 'const a = b as C; const d = e!; let f: any;', ts.ScriptTarget.ES2022, true))).toHaveLength(3);
  });
});
