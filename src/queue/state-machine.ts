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
}

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
