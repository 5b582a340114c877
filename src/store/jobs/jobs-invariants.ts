import { JOB_FAILURE } from '../../jobs/error-codes.js';
import type { Queryable } from '../db.js';
import { checkTransitions } from '../queue/queue-invariants.js';
import { JOBS_QUEUE } from './jobs-repository.js';

/**
 * Jobs ↔ ledger consistency (DESIGN §3, §4): every completed job has exactly one capture of
 * at most its reserved price and one receipt; every failed job has no capture; a job still
 * in progress has an uncaptured hold; the last stored transition is the job's status, and every
 * transition is one the state machine allows; each job has exactly its own idempotency-key row;
 * a canceled job has a receipt that captured nothing, and its tags are exactly its job_tags rows.
 * Returns one line per violation; empty = consistent.
 */
export async function checkJobInvariants(q: Queryable): Promise<string[]> {
  const problems: string[] = [];
  const r = await q.query<{
    id: string;
    status: string;
    error_code: string | null;
    hold_status: string | null;
    captures: number;
    captured: string;
    reserved: string;
    receipt: boolean;
    receipt_captured: string | null;
    lines_captured: string | null;
    lines_reserved: string | null;
    last: string | null;
    n: number;
  }>(
    `SELECT j.id, j.status, j.error_code, h.status AS hold_status, j.reserved_price_micros::text AS reserved, j.receipt->>'amount_captured' AS receipt_captured,
            (SELECT SUM(round((l->>'amount_captured')::numeric * 1000000))::bigint::text FROM jsonb_array_elements(j.receipt->'lines') l) AS lines_captured,
            (SELECT SUM(round((l->>'amount_reserved')::numeric * 1000000))::bigint::text FROM jsonb_array_elements(j.receipt->'lines') l) AS lines_reserved,
            (SELECT count(*)::int FROM ledger_transfers t WHERE t.hold_id = j.hold_id AND t.kind = 'capture') AS captures,
            (SELECT COALESCE(SUM(t.amount_micros), 0)::text FROM ledger_transfers t WHERE t.hold_id = j.hold_id AND t.kind = 'capture') AS captured,
            (j.receipt IS NOT NULL AND j.receipt_reference IS NOT NULL) AS receipt,
            (SELECT x.to_status FROM job_transitions x WHERE x.job_id = j.id ORDER BY x.id DESC LIMIT 1) AS last,
            (SELECT count(*)::int FROM job_transitions x WHERE x.job_id = j.id) AS n
       FROM jobs j LEFT JOIN billing_holds h ON h.id = j.hold_id`,
  );
  for (const j of r.rows) {
    const bad = (why: string) => problems.push(`job ${j.id} (${j.status}): ${why}`);
    if (j.last !== j.status) bad(`last transition is ${j.last ?? 'none'}`);
    switch (j.status) {
      case 'completed':
        if (j.captures !== 1 || j.hold_status !== 'captured') bad(`${j.captures} captures, hold ${j.hold_status ?? 'missing'}`);
        if (BigInt(j.captured) > BigInt(j.reserved)) bad(`captured ${j.captured} > reserved ${j.reserved}`);
        if (!j.receipt) bad('no receipt');
        // A batch's receipt lines (migration 1451) add up to what was reserved and captured.
        if (j.lines_captured !== null && (j.lines_captured !== j.captured || j.lines_reserved !== j.reserved)) {
          bad(`receipt lines capture ${j.lines_captured} of ${j.lines_reserved ?? '?'} but the hold captured ${j.captured} of ${j.reserved}`);
        }
        break;
      case 'failed':
        if (j.captures !== 0) bad(`${j.captures} captures on a failed job`);
        if (j.hold_status === 'pending') bad('hold still pending');
        // A cancel's receipt shows the reservation released; no other failure has one.
        if (j.error_code === JOB_FAILURE.CANCELED) {
          if (!j.receipt || j.receipt_captured !== '0.000000') bad(`canceled job's receipt captured ${j.receipt_captured ?? 'nothing (no receipt)'}`);
        } else if (j.receipt) bad('failed job has a receipt');
        break;
      default:
        if (j.captures !== 0) bad(`${j.captures} captures before completion`);
        if (j.hold_status !== 'pending' && j.hold_status !== 'expired') bad(`hold ${j.hold_status ?? 'missing'}`);
    }
  }
  // Idempotency (migrations 0500, 0501): each job is found by exactly its own key, and by no
  // other, with the job's request hash (the key decides replay or 409 by it).
  const keys = await q.query<{ id: string; why: string }>(
    `SELECT j.id, 'no key row for its (account, idempotency_key)' AS why
       FROM jobs j LEFT JOIN idempotency_keys k ON k.owner = j.account_id::text AND k.scope = 'jobs' AND k.key_hash = idempotency_hash(j.idempotency_key)
      WHERE k.ref IS DISTINCT FROM j.id OR k.request_hash IS DISTINCT FROM j.request_hash OR k.state IS DISTINCT FROM 'done'
     UNION ALL
     SELECT k.ref, 'a key row of another account or key, or of no job' AS why
       FROM idempotency_keys k LEFT JOIN jobs j ON j.id = k.ref
      WHERE k.scope = 'jobs' AND (j.id IS NULL OR k.owner <> j.account_id::text OR k.key_hash <> idempotency_hash(j.idempotency_key))`,
  );
  for (const k of keys.rows) problems.push(`job ${k.id}: ${k.why}`);
  const tags = await q.query<{ id: string }>(
    `SELECT j.id FROM jobs j
      WHERE j.tags IS DISTINCT FROM (SELECT COALESCE(jsonb_object_agg(t.key, t.value), '{}'::jsonb) FROM job_tags t WHERE t.job_id = j.id)
         OR EXISTS (SELECT 1 FROM job_tags t WHERE t.job_id = j.id AND (t.account_id <> j.account_id OR t.created_at <> j.created_at))
      LIMIT 20`,
  );
  for (const t of tags.rows) problems.push(`job ${t.id}: its tags and its job_tags rows differ`);
  problems.push(...(await checkTransitions(q, JOBS_QUEUE)));
  return problems;
}
