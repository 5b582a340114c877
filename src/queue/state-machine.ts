/**
 * The states of a queued item and the moves between them, written once per kind of item
 * (Account Jobs in src/jobs/job.ts, execution jobs in src/execution/execution-job.ts). The
 * worker and the store check every transition they write against it, and the store builds
 * its queue SQL (which statuses a claim takes, which a heartbeat renews) from it, so the
 * rules have no second copy that could disagree.
 */
export interface StateMachine<S extends string> {
  /** What the items are called in messages ("job", "execution job"). */
  readonly name: string;
  readonly states: readonly S[];
  /** States a new item may start in. */
  readonly initial: readonly S[];
  /** Waiting for a worker. */
  readonly queued: S;
  /**
   * Held by a worker under a lease. A claim moves a queued item to the first; an item whose
   * lease expired in any of them is claimed again in the same state. The later ones come
   * after the work ran (a claim there resumes, it does not run the work again).
   */
  readonly leased: readonly [S, ...S[]];
  readonly terminal: readonly S[];
  readonly next: Readonly<Record<S, readonly S[]>>;
  /**
   * What a cancel does (docs/jobs.md#canceling): an item in a `now` state has not started, so it
   * ends in `to` at once (its money released in the same transaction); an item in an `ask` state
   * is running, so its worker is asked to stop and ends it in `to`. Any other state that is not
   * terminal is past stopping (its work is done and only settling is left): not cancelable.
   */
  readonly cancel: { readonly to: S; readonly now: readonly S[]; readonly ask: readonly S[] };
}

/** What a cancel request does to an item in a state (CancelRule). */
export type CancelAction = 'now' | 'ask' | 'too_late' | 'terminal';

/** Checks the definition's own consistency once, where it is declared (a mistake fails at import). */
export function defineStateMachine<S extends string>(m: StateMachine<S>): StateMachine<S> {
  const known = new Set<string>(m.states);
  const check = (ok: boolean, why: string) => {
    if (!ok) throw new Error(`state machine ${m.name}: ${why}`);
  };
  for (const s of [...m.initial, m.queued, ...m.leased, ...m.terminal]) check(known.has(s), `${s} is not one of its states`);
  for (const s of m.states) {
    for (const t of m.next[s]) check(known.has(t), `${s} → ${t}: ${t} is not one of its states`);
  }
  for (const s of m.terminal) check(m.next[s].length === 0, `the terminal state ${s} has transitions`);
  check(!m.terminal.includes(m.queued) && m.leased.every((s) => !m.terminal.includes(s)), 'a queued or leased state is terminal');
  check(m.next[m.queued].includes(m.leased[0]), `a claim's ${m.queued} → ${m.leased[0]} is not allowed`);
  const c = m.cancel;
  check(m.terminal.includes(c.to), `a cancel ends in ${c.to}, which is not terminal`);
  for (const s of [...c.now, ...c.ask]) check(m.next[s].includes(c.to), `a cancel's ${s} → ${c.to} is not allowed`);
  check(
    c.now.every((s) => !m.leased.includes(s)),
    'a leased state cannot be canceled at once: its worker must be asked',
  );
  check(
    c.ask.every((s) => m.leased.includes(s)),
    'only a leased state has a worker to ask',
  );
  return Object.freeze(m);
}

/** `from` null: the item is being created. */
export function canTransition<S extends string>(m: StateMachine<S>, from: S | null, to: S): boolean {
  return from === null ? m.initial.includes(to) : m.next[from].includes(to);
}

/** A transition the machine does not allow is a bug in the caller: it is refused before anything is written. */
export function assertTransition<S extends string>(m: StateMachine<S>, from: S | null, to: S): void {
  if (!canTransition(m, from, to)) throw new Error(`${m.name}: the transition ${from ?? '(new)'} → ${to} is not allowed`);
}

export function isTerminal<S extends string>(m: StateMachine<S>, s: S): boolean {
  return m.terminal.includes(s);
}

export function cancelAction<S extends string>(m: StateMachine<S>, s: S): CancelAction {
  if (m.terminal.includes(s)) return 'terminal';
  if (m.cancel.now.includes(s)) return 'now';
  if (m.cancel.ask.includes(s)) return 'ask';
  return 'too_late';
}
