import type { ErrorDetail } from './app-error.js';

/**
 * One detail per repeated item of a list of strings, in linear time. Replaces the schema
 * keyword `uniqueItems`, which Ajv checks pairwise (quadratic) for items it cannot hash.
 */
export function duplicateItemDetails(items: readonly string[], path: string, where = 'body'): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  items.forEach((item, i) => {
    if (seen.has(item)) out.push({ in: where, path: `${path}/${i}`, code: 'DUPLICATE_ITEM', message: `repeats '${item}'` });
    seen.add(item);
  });
  return out;
}
