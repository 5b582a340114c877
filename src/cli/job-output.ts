import type { CliIo } from './cli-command.js';
import { histogram } from './histogram.js';

/** The text form of an Account Job and of an execution result, shared by `jobs` and `run`. */

/** The fields of an Account Job the text output reads (the client's `Job` has them all). */
export interface JobView {
  readonly job_id: string;
  readonly status: string;
  readonly capability_id: string;
  readonly quoted_price: string;
  readonly reserved_price: string;
  readonly max_total_price: string;
  readonly idempotency_key: string;
  readonly attempts: number;
  readonly result: unknown;
  readonly receipt: {
    readonly receipt_reference: string;
    readonly amount_reserved: string;
    readonly amount_captured: string;
    readonly amount_released: string;
    readonly balance_after: string;
    /** A batch's receipt: one line per item. */
    readonly lines?: ReadonlyArray<{ readonly index: number; readonly status: string; readonly amount_captured: string; readonly amount_released: string; readonly error_code?: string }>;
  } | null;
  readonly error_code: string | null;
  readonly error_message: string | null;
}

interface CountsResult {
  readonly counts: Readonly<Record<string, number>>;
  readonly shots?: number;
  readonly seed?: number | null;
  readonly bit_order?: string;
}

function isCounts(r: unknown): r is CountsResult {
  return typeof r === 'object' && r !== null && typeof (r as { counts?: unknown }).counts === 'object' && (r as { counts?: unknown }).counts !== null;
}

/** "bit order: …" then the histogram. */
export function countsBlock(r: CountsResult): string {
  const head = [r.shots === undefined ? undefined : `${r.shots} shots`, r.seed === undefined || r.seed === null ? undefined : `seed ${r.seed}`].filter((x) => x !== undefined).join(', ');
  const order = r.bit_order ?? 'clbit 0 rightmost';
  return `${head === '' ? '' : `${head}; `}bit order: ${order}\n${histogram(r.counts)}`;
}

export function jobText(job: JobView): string {
  const lines = [
    `job ${job.job_id}  ${job.capability_id}  ${job.status}${job.attempts > 1 ? ` (attempt ${job.attempts})` : ''}`,
    `  price: quoted ${job.quoted_price} USD, reserved ${job.reserved_price} USD (max ${job.max_total_price}); idempotency key ${job.idempotency_key}`,
  ];
  if (job.error_code !== null) lines.push(`  failed: ${job.error_code}${job.error_message === null ? '' : `: ${job.error_message}`}`);
  let text = `${lines.join('\n')}\n`;
  if (isCounts(job.result)) text += `result: ${countsBlock(job.result)}`;
  else if (job.result !== null && typeof job.result === 'object') text += `result: ${Object.keys(job.result).join(', ')} (--json prints it)\n`;
  const r = job.receipt;
  if (r !== null) {
    text += `receipt ${r.receipt_reference}: captured ${r.amount_captured} USD, released ${r.amount_released} USD of ${r.amount_reserved} reserved; balance after ${r.balance_after} USD\n`;
    for (const l of r.lines ?? []) {
      text += `  item ${l.index}: ${l.status}${l.error_code === undefined ? '' : ` (${l.error_code})`}, captured ${l.amount_captured} USD, released ${l.amount_released} USD\n`;
    }
  }
  return text;
}

/**
 * The waiting line on stderr: redrawn in place on a terminal, one line per status change
 * otherwise (a log file gets no carriage returns).
 */
export function progressReporter(io: CliIo, what: string): { update(status: string, detail?: string): void; done(): void } {
  const started = Date.now();
  let last = '';
  let drawn = false;
  return {
    update(status, detail) {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const text = `waiting for ${what}: ${status}${detail === undefined ? '' : ` ${detail}`}`;
      if (io.errIsTty === true) {
        io.err(`\r\x1b[K${text} (${seconds} s)`);
        drawn = true;
      } else if (status !== last) io.err(`${text} (${seconds} s)\n`);
      last = status;
    },
    done() {
      if (drawn) io.err('\n');
    },
  };
}
