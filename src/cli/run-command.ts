import type { ExecutionJob } from '../../packages/client/src/index.js';
import { EXIT } from './cli-command.js';
import { readCircuitFile } from './circuit-file.js';
import { countsBlock } from './job-output.js';
import { CommandFailure, printJson } from './output.js';
import { remoteCommand, requireSession } from './remote-session.js';
import { waitWithProgress } from './wait-for.js';
import { intOption } from './parse-command-line.js';

/**
 * `qrail run FILE`: one execution on a provider's simulator (POST /v1/execute/provider-one|two)
 * with the session, printed as a histogram of the counts with the bit order stated.
 * Hardware devices need a quote and a hold first (docs/api-guide.md); the service says so
 * (EXECUTION_HOLD_REQUIRED, with the estimate), which is printed as any other error.
 */
const PROVIDERS = ['provider-one', 'provider-two'] as const;
type Provider = (typeof PROVIDERS)[number];

export const runCommand = remoteCommand({
  name: 'run',
  summary: 'run a circuit on a provider and print the counts as a histogram',
  description: `The counts are printed most frequent first; each bitstring has one bit per classical
bit with clbit 0 rightmost (Qiskit / OpenQASM order), as the service states with the result.
Simulators are free and answer at once; a queued run is waited for with a progress line on stderr.`,
  positionals: [{ name: 'FILE', description: 'the circuit: FILE.qasm or FILE.json' }],
  options: {
    provider: { type: 'string', value: 'provider', choices: PROVIDERS, description: 'default provider-one' },
    device: { type: 'string', value: 'device', description: "a device of the provider (default: the provider's simulator)" },
    shots: { type: 'string', value: 'n', description: 'default 1000' },
    seed: { type: 'string', value: 'n', description: 'makes the counts reproducible' },
    timeout: { type: 'string', value: 'seconds', description: 'give up waiting for a queued run after this long' },
  },
  examples: ['qrail run examples/bell.qasm', 'qrail run ghz.qasm --provider provider-two --shots 500 --seed 7', 'qrail run bell.json --json | jq .results.counts'],
  async run(input, svc, ctx) {
    const provider = (typeof input.options['provider'] === 'string' ? input.options['provider'] : 'provider-one') as Provider;
    const device = typeof input.options['device'] === 'string' ? input.options['device'] : undefined;
    const shots = intOption(input.options['shots'], 'shots') ?? 1000;
    const seed = intOption(input.options['seed'], 'seed');
    const timeoutSeconds = intOption(input.options['timeout'], 'timeout');
    const body = { circuit: readCircuitFile(input.positionals[0] ?? ''), shots, ...(device === undefined ? {} : { device }), ...(seed === undefined ? {} : { seed }) };
    // A machine credential runs too, within its scopes (execute:simulator; hardware goes through quote and hold).
    if (!svc.hasJobsAuth) requireSession(svc);
    let job = provider === 'provider-one' ? await svc.client.execution.runProviderOne(body) : await svc.client.execution.runProviderTwo(body);
    if (job.status !== 'completed' && job.status !== 'failed') {
      const id = job.job_id;
      job = await waitWithProgress<ExecutionJob>(
        ctx,
        { what: `run ${id}`, resume: `GET /v1/execute/${provider}/${id}`, quiet: svc.json, ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) },
        (signal, onProgress) => svc.client.execution.waitForJob(provider, id, { signal, onProgress }),
      );
    }
    if (svc.json) printJson(ctx.io, job);
    if (job.status !== 'completed' || job.results === null) {
      throw new CommandFailure({
        code: job.failure?.code ?? 'RUN_FAILED',
        message: `run ${job.job_id} on ${job.provider}/${job.device} ended ${job.status}${job.failure === null ? '' : `: ${job.failure.message}`}`,
      });
    }
    if (!svc.json) {
      ctx.io.out(
        `run ${job.job_id} on ${job.provider}/${job.device} (${job.kind}): ${job.status}, cost ${job.cost.actual ?? job.cost.estimated} ${job.cost.currency}\n${countsBlock({ ...job.results, seed: job.seed })}`,
      );
    }
    return EXIT.OK;
  },
});
