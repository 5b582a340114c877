/**
 * A batch of simulator runs on the platform interface (issue 22 item 3;
 * docs/execution.md#batches): up to 100 circuits in one request, each run as its own execution
 * job (`run`, so each is stored, idempotent and cancelable as any run), each result or error
 * reported per item. The batch's client_token names it as a whole: item i is recorded under
 * `<client_token>#i` ('#' is outside the tokens a client may send) with the batch's request
 * hash, so the same token and batch replays every item and another batch under it is refused.
 * Simulator runs are free: there is nothing to reserve (hardware batches are continuations of
 * a hold for N tasks: POST /v1/execute/provider-two/held/{job_id}/batch).
 */
import { isAppError } from '../errors/app-error.js';
import { EXECUTION_ERRORS } from './error-codes.js';
import type { WireMethodOptions } from './workload-request.js';

export interface RunBatchRequest {
  readonly circuits: readonly unknown[];
  readonly shots?: number;
  readonly device?: string;
  /** Circuit i runs with seed + i. */
  readonly seed?: number;
  readonly client_token: string;
  /** The simulation method of every item (default auto, chosen per circuit). */
  readonly method?: string;
  readonly method_options?: WireMethodOptions;
}

/** ExecutionService.run for one item (its body, and the batch's request hash for its token). */
type RunOne = (
  body: { circuit: unknown; client_token: string; shots?: number; device?: string; seed?: number; method?: string; method_options?: RunBatchRequest['method_options'] },
  opts: { requestHash: string },
) => Promise<Record<string, unknown>>;

interface BatchItem {
  readonly index: number;
  readonly status: 'completed' | 'failed';
  readonly job: Record<string, unknown> | null;
  readonly error: { code: string; message: string; details?: unknown } | null;
}

/** Errors that concern the batch as a whole (its token, its device): they answer the request instead of an item. */
const WHOLE_BATCH = new Set<string>([
  EXECUTION_ERRORS.EXECUTION_CLIENT_TOKEN_REUSED.code,
  EXECUTION_ERRORS.EXECUTION_CLIENT_TOKEN_IN_PROGRESS.code,
  EXECUTION_ERRORS.EXECUTION_DEVICE_UNKNOWN.code,
  EXECUTION_ERRORS.EXECUTION_DEVICE_UNAVAILABLE.code,
  EXECUTION_ERRORS.EXECUTION_PROVIDER_NOT_CONFIGURED.code,
  EXECUTION_ERRORS.EXECUTION_HOLD_REQUIRED.code,
]);

export async function runSimulatorBatch(run: RunOne, b: { provider: string; device: string; body: RunBatchRequest; hash: string }) {
  const { body } = b;
  // The first item alone decides the batch-wide answers (token reuse, device) before the rest run.
  const one = async (index: number): Promise<BatchItem> => {
    const circuit = body.circuits[index];
    try {
      const job = await run(
        {
          circuit,
          client_token: `${body.client_token}#${index}`,
          ...(body.shots === undefined ? {} : { shots: body.shots }),
          ...(body.device === undefined ? {} : { device: body.device }),
          ...(body.seed === undefined ? {} : { seed: body.seed + index }),
          ...(body.method === undefined ? {} : { method: body.method }),
          ...(body.method_options === undefined ? {} : { method_options: body.method_options }),
        },
        { requestHash: b.hash },
      );
      const failure = job['failure'] as { code: string; message: string } | null;
      return { index, status: job['status'] === 'completed' ? 'completed' : 'failed', job, error: failure };
    } catch (e) {
      if (!isAppError(e) || WHOLE_BATCH.has(e.code)) throw e;
      return { index, status: 'failed', job: null, error: { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) } };
    }
  };
  const first = await one(0);
  // The rest side by side: the compute pool runs as many at once as it has threads.
  const rest = await Promise.all(body.circuits.slice(1).map((_, i) => one(i + 1)));
  const items = [first, ...rest];
  const completed = items.filter((x) => x.status === 'completed').length;
  return {
    provider: b.provider,
    device: b.device,
    items,
    completed,
    failed: items.length - completed,
    replayed: items.some((x) => x.job?.['replayed'] === true),
  };
}
