/**
 * Polls a state until it holds: resolves with the first value of `probe` that is neither
 * `undefined`, `null` nor `false`, and fails with `what` once `timeoutMs` has passed. Tests wait
 * for a state this way (or force it), never by sleeping for a guessed time.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  opts: { readonly timeoutMs?: number; readonly intervalMs?: number; readonly what?: string } = {},
): Promise<Exclude<T, undefined | null | false>> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v as Exclude<T, undefined | null | false>;
    if (Date.now() > deadline) throw new Error(`waitFor: ${opts.what ?? 'the state'} did not hold within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 10));
  }
}
