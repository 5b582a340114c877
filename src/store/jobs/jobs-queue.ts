import { JOB_STATE_MACHINE, type JobStatus } from '../../jobs/job.js';
import { defineQueueTable } from '../queue/pg-queue.js';
import { jobColumns } from './job-rows.js';

/** The jobs table on the one queue (src/store/queue/pg-queue.ts). */
export const JOBS_QUEUE = defineQueueTable<JobStatus>({
  table: 'jobs',
  events: 'job_transitions',
  machine: JOB_STATE_MACHINE,
  columns: jobColumns,
});

/** The worker's claim ($1 worker id, $2 lease in ms); tests EXPLAIN it. */
export const CLAIM_JOB_SQL = JOBS_QUEUE.claimSql;
