import { jobPageQuery } from '../page-query.js';
import { Type } from 'typebox';
import { Iso, Nullable, NullableIso, Obj } from '../../schema-helpers.js';
import { OptimizeData } from '../circuits/schemas.js';
import { LIST_MAX } from '../../../kernel/list-cursor.js';
import { OPTIMIZE_JOB_STATUSES, type OptimizeJob } from '../../../optimize-jobs/optimize-job.js';

/** An optimize job as the API shows it (async POST /v1/circuits/optimize, GET and cancel of …/optimize/jobs/{job_id}). */
export const OptimizeJobView = Obj(
  {
    job_id: Type.String({ format: 'uuid' }),
    status: Type.Union(OPTIMIZE_JOB_STATUSES.map((s) => Type.Literal(s))),
    profile: Type.String(),
    backend_hint: Type.String(),
    device: Nullable(Type.String()),
    progress: Nullable(
      Obj({ fraction: Type.Number({ minimum: 0, maximum: 1 }), phase: Type.String(), at: Iso }),
      'While running: the fraction done (never going back), the optimizer phase (`parsing`, `optimizing`, `verifying`, `exporting`; a circuit with mid-circuit measurement adds its segment, e.g. `optimizing segment 2/5`) and when it was reported (stored at most once a second); null otherwise',
    ),
    result: Nullable(OptimizeData, 'When completed: the same `data` the synchronous optimize answers'),
    error: Nullable(
      Obj({ code: Type.String(), message: Type.String() }),
      'When failed: the code the synchronous optimize would have answered (OPTIMIZATION_UNVERIFIED, …), or WORKER_LOST / INTERNAL_ERROR',
    ),
    cancel_requested_at: NullableIso,
    created_at: Iso,
    started_at: NullableIso,
    finished_at: NullableIso,
  },
  { $id: 'OptimizeJob', description: 'An optimize job: queued, running (with progress), completed (with the result), failed (with the error) or canceled' },
);

export const OptimizeJobListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union(
        OPTIMIZE_JOB_STATUSES.map((s) => Type.Literal(s)),
        { description: 'Only jobs in this state' },
      ),
    ),
    ...jobPageQuery(),
  },
  { additionalProperties: false },
);

export const OptimizeJobPage = Obj({
  jobs: Type.Array(OptimizeJobView, { maxItems: LIST_MAX }),
  next_cursor: Nullable(Type.String(), 'Pass as cursor for the next page; null on the last'),
  has_more: Type.Boolean({ description: 'Whether a next page exists (next_cursor is set exactly then)' }),
});

export const OptimizeJobParams = Type.Object({ job_id: Type.String({ format: 'uuid' }) });

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());

export function optimizeJobView(j: OptimizeJob) {
  const t = j.request.task;
  return {
    job_id: j.id,
    status: j.status,
    profile: t.profile,
    backend_hint: t.backendHint,
    device: j.request.device,
    progress: j.status === 'running' && j.progress !== null ? { fraction: j.progress.fraction, phase: j.progress.phase, at: new Date(j.progress.at).toISOString() } : null,
    result: j.status === 'completed' ? j.result : null,
    error: j.status === 'failed' && j.error_code !== null ? { code: j.error_code, message: j.error_message ?? '' } : null,
    cancel_requested_at: iso(j.cancel_requested_at),
    created_at: iso(j.created_at) ?? '',
    started_at: iso(j.started_at),
    finished_at: iso(j.finished_at),
  };
}
