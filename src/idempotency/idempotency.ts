/**
 * The one idempotency mechanism (issue 18; docs/decisions/foundation-idempotency-one-mechanism.md):
 * one table of keys by (owner, scope, key hash) with the request's hash, a state and lease, and
 * the outcome — the object the request made, or the header's stored answer — and one set of SQL
 * functions (migration 0500) that every caller goes through:
 *   - the Idempotency-Key header on platform POSTs (src/http/plugins/idempotency.ts): `reserve`,
 *     then `finish`, through this port;
 *   - execution's client_token: `lookup` through this port, and the claim and record in the
 *     transaction that inserts the job (the execution store);
 *   - Account Jobs' idempotency_key and ledger credits with a key: claimed and recorded inside
 *     their one SQL statement (jobs_submit, ledger_credit), so they need no call here.
 * The store implements this port (src/store/repositories/idempotency-repository.ts).
 */
import { createHash } from 'node:crypto';

/** Where a key lives: each scope is its own namespace, with its own retention (SQL idempotency_retention). */
export type IdempotencyScope = 'header' | 'jobs' | 'execution' | 'ledger';

/** How long the header's keys are remembered; the other scopes keep a key as long as its object. */
export const HEADER_RETENTION_HOURS = 24;

/** Hex SHA-256: a raw key is stored only as this (SQL computes the same: idempotency_hash). */
export function idempotencyHash(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export interface KeyRef {
  readonly scope: IdempotencyScope;
  /** Account id, or 'operator' (the header on operator routes). */
  readonly owner: string;
  readonly keyHash: string;
}

/** What a key stands for when a request arrives with it. */
export type KeyOutcome =
  /** Go ahead. `runToken`: a reservation's run (stable across a takeover of the same request). */
  | { readonly kind: 'new'; readonly runToken: string | null }
  /** The same request already done: its object (`ref`) or its stored answer. */
  | { readonly kind: 'replay'; readonly ref: string | null; readonly statusCode: number | null; readonly response: string | null }
  /** The key names another request: its object, or the header's route. */
  | { readonly kind: 'reused'; readonly ref: string | null; readonly route: string | null }
  /** The same request is still being processed. */
  | { readonly kind: 'in_flight' };

export interface Idempotency {
  /**
   * Reserves the key for a request whose effects span several transactions (the header's
   * handler), for `leaseSeconds`; the request ends it with `finish`. A failed run, a lapsed lease
   * of the same request, or a key past retention is taken over.
   */
  reserve(k: KeyRef & { readonly requestHash: string; readonly route: string; readonly leaseSeconds: number }): Promise<KeyOutcome>;
  /** What the key stands for now, without claiming it (never `in_flight` for keys recorded with their object). */
  lookup(k: KeyRef & { readonly requestHash: string }): Promise<KeyOutcome>;
  /**
   * Ends the reservation held by `runToken`: stores the answer, or with null marks the run failed
   * (nothing stored; a retry runs again under the same run token). False when another run holds it.
   */
  finish(k: KeyRef & { readonly runToken: string }, answer: { readonly statusCode: number; readonly response: string } | null): Promise<boolean>;
  /** Deletes up to 1,000 keys past retention (and the header's effects as old); returns how many keys. */
  purge(): Promise<number>;
}
