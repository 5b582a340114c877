/**
 * Every metric qrail exports, in one place: name, type, help and label names. The Prometheus
 * adapter builds its series from this table, the dashboards and alert rules in deploy/ are
 * checked against it, and the `Meter` port's types come from it, so a misspelt name or label
 * does not compile. Labels take values from small fixed sets (route patterns, codes, kinds):
 * never ids, emails or free text.
 */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface Def {
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly help: string;
  readonly labels: readonly string[];
  readonly buckets?: readonly number[];
}

export const METRICS = {
  qrail_http_requests_total: { type: 'counter', help: 'HTTP requests by method, route pattern and status.', labels: ['method', 'route', 'status'] },
  qrail_http_request_duration_seconds: { type: 'histogram', help: 'HTTP request latency by method and route pattern.', labels: ['method', 'route'], buckets: SECONDS },
  qrail_http_errors_total: { type: 'counter', help: 'Error responses by stable error code and status.', labels: ['code', 'status'] },
  qrail_rate_limit_refusals_total: { type: 'counter', help: 'Requests refused by a rate limit, by bucket.', labels: ['bucket'] },
  qrail_rate_limit_shared: {
    type: 'gauge',
    help: '1 while this process counts rate limits in Redis (REDIS_URL), 0 while its breaker is open and it counts them locally (absent without REDIS_URL).',
    labels: [],
  },
  qrail_rate_limit_fallback_total: { type: 'counter', help: 'Rate-limit hits counted in the process because Redis failed, timed out or its breaker was open.', labels: [] },

  qrail_jobs_submitted_total: { type: 'counter', help: 'Account Jobs accepted, by capability.', labels: ['capability'] },
  qrail_jobs_finished_total: {
    type: 'counter',
    help: 'Account Jobs that reached a terminal state, by capability, status and error code ("" when completed).',
    labels: ['capability', 'status', 'code'],
  },
  qrail_execution_jobs_finished_total: { type: 'counter', help: 'Execution jobs that reached a terminal state, by provider and status.', labels: ['provider', 'status'] },

  qrail_queue_depth: { type: 'gauge', help: 'Items waiting to be claimed, by queue (cluster-wide, read from the database at scrape).', labels: ['queue'] },
  qrail_queue_oldest_age_seconds: { type: 'gauge', help: 'Age of the oldest item waiting to be claimed, by queue (cluster-wide, 0 when empty).', labels: ['queue'] },
  qrail_queue_running: { type: 'gauge', help: 'Items under a lease now, by queue (cluster-wide).', labels: ['queue'] },
  qrail_queue_claims_total: {
    type: 'counter',
    help: 'Items claimed by this process, by queue and what the claim did: run (first run), rerun (after a lease expired), canceled, given_up.',
    labels: ['queue', 'outcome'],
  },
  qrail_queue_claim_wait_seconds: { type: 'histogram', help: 'Time from submission to the first claim, by queue (Account Jobs).', labels: ['queue'], buckets: SECONDS },
  qrail_queue_claim_query_seconds: { type: 'histogram', help: 'Duration of the claim statement, by queue.', labels: ['queue'], buckets: SECONDS },
  qrail_queue_leases_lost_total: { type: 'counter', help: 'Leases this process found taken over (its item was claimed by another worker after the lease expired).', labels: ['queue'] },
  qrail_queue_handle_seconds: { type: 'histogram', help: 'Time a claimed item was handled for, by queue.', labels: ['queue'], buckets: SECONDS },

  qrail_compute_threads_busy: { type: 'gauge', help: 'Compute pool threads running a task now.', labels: [] },
  qrail_compute_tasks_queued: { type: 'gauge', help: 'Compute tasks waiting for a thread.', labels: [] },
  qrail_compute_threads_crashed_total: { type: 'counter', help: 'Compute threads that died while running a task.', labels: [] },
  qrail_compute_task_seconds: { type: 'histogram', help: 'Compute task duration (queue wait included), by task kind and outcome.', labels: ['task', 'outcome'], buckets: SECONDS },

  qrail_optimizer_runs_total: { type: 'counter', help: 'Optimizations by profile and outcome (verified, unverified, timeout, error).', labels: ['profile', 'outcome'] },

  qrail_holds_open: { type: 'gauge', help: 'Billing holds pending now, by kind (cluster-wide).', labels: ['kind'] },
  qrail_holds_resolved_total: {
    type: 'counter',
    help: 'Billing holds resolved, by kind and outcome (captured, released, expired; cluster-wide, read from the database at scrape).',
    labels: ['kind', 'outcome'],
  },
  qrail_money_moved_micro_usd_total: {
    type: 'counter',
    help: 'Money moved by ledger transfer kind, in micro-USD (cluster-wide total read from the ledger at scrape: every node reports the same value).',
    labels: ['kind'],
  },

  qrail_ledger_check_violations: {
    type: 'gauge',
    help: 'Violations found by the last periodic ledger check of this worker process (BILLING_LEDGER_CHECK_INTERVAL_SECONDS); 0 before the first check.',
    labels: [],
  },
  qrail_ledger_check_last_run_timestamp_seconds: { type: 'gauge', help: 'Unix time the last periodic ledger check of this worker process finished (0 before the first).', labels: [] },
  qrail_ledger_checks_total: { type: 'counter', help: 'Periodic ledger checks run by this process, by outcome (ok, violations, error).', labels: ['outcome'] },

  qrail_processor_calls_total: { type: 'counter', help: 'Payment processor calls by operation and outcome (ok, error).', labels: ['operation', 'outcome'] },
  qrail_webhook_deliveries_total: { type: 'counter', help: 'Outbound webhook delivery attempts by outcome (succeeded, retry, failed: given up).', labels: ['outcome'] },
  qrail_webhook_backlog: { type: 'gauge', help: 'Outbound webhook events not yet fanned out plus deliveries still to send (cluster-wide, read from the database at scrape).', labels: [] },

  qrail_db_up: {
    type: 'gauge',
    help: '1 when this process reached the database at this scrape, 0 when not (the series read from the database then repeat their last values).',
    labels: [],
  },
  qrail_db_pool_connections: {
    type: 'gauge',
    help: 'Database pool connections by state (total, idle, waiting: checkouts no idle or new connection can serve now).',
    labels: ['state'],
  },
  qrail_db_query_errors_total: {
    type: 'counter',
    help: 'Database statements and connection attempts that failed, by SQLSTATE class (08 for a connection lost or refused without one, "" when unknown).',
    labels: ['class'],
  },
} as const satisfies Record<string, Def>;

export type MetricName = keyof typeof METRICS;
type LabelsOf<N extends MetricName> = (typeof METRICS)[N]['labels'][number];
export type Labels<N extends MetricName> = [LabelsOf<N>] extends [never] ? Record<string, never> : Readonly<Record<LabelsOf<N>, string>>;
export type CounterName = { [N in MetricName]: (typeof METRICS)[N]['type'] extends 'counter' ? N : never }[MetricName];
export type HistogramName = { [N in MetricName]: (typeof METRICS)[N]['type'] extends 'histogram' ? N : never }[MetricName];
export type GaugeName = { [N in MetricName]: (typeof METRICS)[N]['type'] extends 'gauge' ? N : never }[MetricName];
