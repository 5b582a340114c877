/**
 * The codes of a failure-code table (code → description) as constants, so code that sets a
 * failure writes `JOB_FAILURE.WORKER_LOST` and a typo is a type error, not a new code nobody
 * documented. `codeNames({ A: '…' }).A === 'A'`.
 */
export function codeNames<T extends Readonly<Record<string, string>>>(table: T): { readonly [K in keyof T & string]: K } {
  return Object.freeze(Object.fromEntries(Object.keys(table).map((k) => [k, k]))) as { readonly [K in keyof T & string]: K };
}
