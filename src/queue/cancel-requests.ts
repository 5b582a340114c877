/**
 * Cancel requests delivered in-process (docs/jobs.md#canceling). A cancel is stored on the item
 * (`cancel_requested_at`), and the worker holding it learns of it at its next heartbeat; when the
 * work runs in the process that took the request (`serve --role all`, tests), this tells it at
 * once. One instance per kind of item, shared by its service (which requests) and the leases of
 * its work (which watch).
 */
export class CancelRequests {
  private readonly watchers = new Map<string, Set<() => void>>();

  /** Calls `onCancel` when a cancel of `id` is requested here; returns the unsubscribe. */
  watch(id: string, onCancel: () => void): () => void {
    let set = this.watchers.get(id);
    if (set === undefined) {
      set = new Set();
      this.watchers.set(id, set);
    }
    set.add(onCancel);
    return () => {
      set.delete(onCancel);
      if (set.size === 0 && this.watchers.get(id) === set) this.watchers.delete(id);
    };
  }

  /** A cancel of `id` was stored: tells the work running it in this process, if any. */
  request(id: string): void {
    for (const f of [...(this.watchers.get(id) ?? [])]) f();
  }
}

/** What a cancel request did to an item (docs/jobs.md#canceling). */
export type CancelOutcome =
  /** It had not started: ended failed / CANCELED now, its money released in the same transaction. */
  | 'canceled'
  /** It is running: its worker was asked to stop (now, or by an earlier request). */
  | 'requested'
  /** It was canceled before: the same answer again. */
  | 'already'
  /** It ended another way (completed, failed) or only its settling is left (a saved result). */
  | 'not_cancelable';
