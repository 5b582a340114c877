import type { Job } from '../../packages/client/src/index.js';
import { EXIT, type CliContext, type OptionSpec } from './cli-command.js';
import { readCircuitFile, readJsonObject } from './circuit-file.js';
import { jobText, type JobView } from './job-output.js';
import { printJson, reportFailure } from './output.js';
import { remoteCommand, requireJobsAuth, type RemoteService } from './remote-session.js';
import { waitWithProgress } from './wait-for.js';
import { intOption, strOption } from './parse-command-line.js';

/**
 * `qrail jobs submit|get|list|wait|cancel`: the Account Jobs interface (prepaid jobs for a capability
 * of the catalog), with the saved machine credential. A job that ends `failed` exits 1.
 */

const WAIT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  timeout: { type: 'string', value: 'seconds', description: 'give up waiting after this long (exit 1; the job continues)' },
};

/** Prints the finished job; exit 1 when it failed. */
function finish(ctx: CliContext, svc: RemoteService, job: JobView): number {
  if (svc.json) printJson(ctx.io, job);
  else ctx.io.out(jobText(job));
  if (job.status === 'failed') {
    return reportFailure(ctx.io, svc.json, {
      code: job.error_code ?? 'JOB_FAILED',
      message: `job ${job.job_id} failed${job.error_message === null ? '' : `: ${job.error_message}`}`,
      details: { job_id: job.job_id },
    });
  }
  return EXIT.OK;
}

async function waitForJob(ctx: CliContext, svc: RemoteService, jobId: string, timeout: string | boolean | undefined): Promise<number> {
  const timeoutSeconds = intOption(timeout, 'timeout');
  const job = await waitWithProgress<Job>(ctx, { what: `job ${jobId}`, resume: `qrail jobs wait ${jobId}`, ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) }, (signal, onProgress) =>
    svc.client.jobs.waitForJob(jobId, { signal, onProgress }),
  );
  return finish(ctx, svc, job);
}

export const jobsSubmitCommand = remoteCommand({
  name: 'jobs submit',
  summary: 'submit a prepaid job for a catalog capability (quoted, reserved and queued in one step)',
  description: `The request is built from FILE (its circuit), --shots and --seed, on top of --request FILE.json
when given; the catalog (GET /v1/catalog) lists each capability's request schema and price formula.
The price is reserved from the balance when the quote is at most --max-price, else nothing is
reserved (PRICE_ABOVE_MAXIMUM, exit 1). A retry with the same --idempotency-key returns the same
job, never a second one (without one, a random key is made and printed).`,
  positionals: [
    { name: 'CAPABILITY', description: 'e.g. circuit.simulate, circuit.optimize, circuit.analyze, coupling.analyze' },
    { name: 'FILE', description: 'the circuit (FILE.qasm or FILE.json), put in the request as "circuit"', optional: true },
  ],
  options: {
    'max-price': { type: 'string', value: 'usd', required: true, description: 'the most you will pay, USD (e.g. 0.01)' },
    shots: { type: 'string', value: 'n', description: 'request.shots (simulate capabilities)' },
    seed: { type: 'string', value: 'n', description: 'request.seed, for reproducible counts' },
    circuits: { type: 'string', value: 'file,file,…', description: 'request.circuits of a batch (circuit.simulate.batch): up to 100 circuit files, comma-separated' },
    request: { type: 'string', value: 'file.json', description: 'the request object from a file (FILE, --shots, --seed override its fields)' },
    'idempotency-key': { type: 'string', value: 'key', description: 'makes the submission safe to repeat (default: a random one)' },
    wait: { type: 'boolean', description: 'then wait for the job as `qrail jobs wait` does' },
    ...WAIT_OPTIONS,
  },
  examples: [
    'qrail jobs submit circuit.simulate examples/bell.qasm --shots 1000 --max-price 0.01',
    'qrail jobs submit circuit.optimize --request body.json --max-price 0.05 --idempotency-key nightly-42 --wait',
    'qrail jobs submit circuit.simulate.batch --circuits examples/bell.qasm,examples/optimizable.json --shots 1000 --max-price 0.01 --wait',
  ],
  async run(input, svc, ctx) {
    const [capability = '', file] = input.positionals;
    const shots = intOption(input.options['shots'], 'shots');
    const seed = intOption(input.options['seed'], 'seed');
    const base = strOption(input.options['request']) === undefined ? {} : readJsonObject(strOption(input.options['request']) ?? '');
    const batch = strOption(input.options['circuits']);
    const request = {
      ...base,
      ...(file === undefined ? {} : { circuit: readCircuitFile(file) }),
      ...(batch === undefined ? {} : { circuits: batch.split(',').map((f) => readCircuitFile(f.trim())) }),
      ...(shots === undefined ? {} : { shots }),
      ...(seed === undefined ? {} : { seed }),
    };
    const key = strOption(input.options['idempotency-key']) ?? `cli-${crypto.randomUUID()}`;
    intOption(input.options['timeout'], 'timeout');
    requireJobsAuth(svc);
    const job = await svc.client.jobs.submit({ capability_id: capability, request, max_total_price: strOption(input.options['max-price']) ?? '', idempotency_key: key });
    if (input.options['wait'] === true) {
      if (!svc.json) ctx.io.err(`submitted job ${job.job_id} (quoted ${job.quoted_price} USD, idempotency key ${key})\n`);
      return waitForJob(ctx, svc, job.job_id, input.options['timeout']);
    }
    if (svc.json) printJson(ctx.io, job);
    else ctx.io.out(`${jobText(job)}next: qrail jobs wait ${job.job_id}\n`);
    return EXIT.OK;
  },
});

export const jobsGetCommand = remoteCommand({
  name: 'jobs get',
  summary: 'a job as it is now: status, price, result (counts as a histogram) and receipt',
  positionals: [{ name: 'JOB_ID', description: 'as `jobs submit` printed it (a UUID)', format: 'uuid' }],
  examples: ['qrail jobs get 7f3c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51', 'qrail jobs get 7f3c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51 --json | jq .receipt'],
  async run(input, svc, ctx) {
    requireJobsAuth(svc);
    return finish(ctx, svc, await svc.client.jobs.get(input.positionals[0] ?? ''));
  },
});

export const jobsListCommand = remoteCommand({
  name: 'jobs list',
  summary: "the account's jobs, newest first",
  options: {
    limit: { type: 'string', value: 'n', description: 'at most this many (1–100, default 50)' },
    cursor: { type: 'string', value: 'cursor', description: 'the next page (printed after a full page)' },
    'idempotency-key': { type: 'string', value: 'key', description: 'only the job submitted with this key' },
    status: { type: 'string', value: 'status', description: 'only jobs in this state (queued, running, completed, failed, …)' },
    capability: { type: 'string', value: 'id', description: 'only jobs of this capability' },
    tag: { type: 'string', value: 'key:value', description: 'only jobs with this tag' },
  },
  examples: ['qrail jobs list', 'qrail jobs list --status queued --tag experiment:bell-7', 'qrail jobs list --limit 100 --json | jq -r ".jobs[].job_id"'],
  async run(input, svc, ctx) {
    const limit = intOption(input.options['limit'], 'limit');
    const opt = (name: string, as: string) => {
      const v = strOption(input.options[name]);
      return v === undefined ? {} : { [as]: v };
    };
    const tag = strOption(input.options['tag']);
    requireJobsAuth(svc);
    const page = await svc.client.jobs.list({
      ...(limit === undefined ? {} : { limit }),
      ...opt('cursor', 'cursor'),
      ...opt('idempotency-key', 'idempotency_key'),
      ...opt('status', 'status'),
      ...opt('capability', 'capability_id'),
      ...(tag === undefined ? {} : { tag: [tag] }),
    });
    if (svc.json) {
      printJson(ctx.io, page);
      return EXIT.OK;
    }
    const rows = page.jobs.map((j) => `${j.job_id}  ${j.status.padEnd(12)}  ${j.capability_id.padEnd(22)}  ${j.reserved_price.padStart(10)} USD  ${j.created_at}`);
    ctx.io.out(rows.length === 0 ? 'no jobs\n' : `${rows.join('\n')}\n`);
    if (page.next_cursor !== null) ctx.io.out(`more: qrail jobs list --cursor ${page.next_cursor}\n`);
    return EXIT.OK;
  },
});

export const jobsWaitCommand = remoteCommand({
  name: 'jobs wait',
  summary: 'wait until a job is completed or failed (progress on stderr), then print it with its receipt',
  description: `Polls GET /v1/jobs/{id} (backing off from 0.5 s to 5 s) and shows the status on stderr
while waiting. Exits 0 when the job completed, 1 when it failed or --timeout passed; Ctrl-C stops
waiting (exit 130) and the job continues.`,
  positionals: [{ name: 'JOB_ID', description: 'as `jobs submit` printed it (a UUID)', format: 'uuid' }],
  options: WAIT_OPTIONS,
  examples: ['qrail jobs wait 7f3c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51', 'qrail jobs wait 7f3c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51 --timeout 60 --json > job.json'],
  async run(input, svc, ctx) {
    intOption(input.options['timeout'], 'timeout');
    requireJobsAuth(svc);
    return waitForJob(ctx, svc, input.positionals[0] ?? '', input.options['timeout']);
  },
});

export const jobsCancelCommand = remoteCommand({
  name: 'jobs cancel',
  summary: 'cancel a job: not yet running, it ends failed / CANCELED now; running, it is stopped (nothing captured either way)',
  description: `A job not yet running ends failed with error_code CANCELED at once and its reservation is
released; a running one is asked to stop and ends so (\`qrail jobs wait\` shows it). Nothing is
captured either way. Canceling it again answers the same; a job that already ended otherwise
answers JOB_NOT_CANCELABLE (exit 1).`,
  positionals: [{ name: 'JOB_ID', description: 'as `jobs submit` printed it (a UUID)', format: 'uuid' }],
  examples: ['qrail jobs cancel 7f3c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51', 'qrail jobs cancel 7f3c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51 --json | jq .receipt'],
  async run(input, svc, ctx) {
    requireJobsAuth(svc);
    const job = await svc.client.jobs.cancel(input.positionals[0] ?? '');
    if (svc.json) printJson(ctx.io, job);
    else ctx.io.out(`${jobText(job)}${job.status === 'failed' ? '' : `stopping: qrail jobs wait ${job.job_id}\n`}`);
    return EXIT.OK;
  },
});
