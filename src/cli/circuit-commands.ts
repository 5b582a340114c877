import { CIRCUITS_ERRORS } from '../circuits/error-codes.js';
import { OPTIMIZATION_ERRORS } from '../optimization/error-codes.js';
import type { OptimizeBody, OptimizeJob, OptimizeResult } from '../../packages/client/src/index.js';
import { EXIT, type CliContext, type OptionSpec, type ParsedInput } from './cli-command.js';
import { outputFormatFor, readCircuitFile, writeCircuitFile } from './circuit-file.js';
import { CommandFailure, printJson, reportFailure } from './output.js';
import { remoteCommand, requireSession, type RemoteService } from './remote-session.js';
import { intOption, strOption } from './parse-command-line.js';
import { waitWithProgress } from './wait-for.js';

/**
 * `qrail circuits validate|analyze|optimize FILE`: the open circuit endpoints (a saved session
 * is sent when there is one: it raises the anonymous limits). FILE is OpenQASM (`*.qasm`) or
 * JSON (wire format 0.2/0.1).
 */

const FILE = [{ name: 'FILE', description: 'the circuit: FILE.qasm (OpenQASM 2 or 3) or FILE.json (wire format 0.2 or 0.1)' }];
const OUT: Readonly<Record<string, OptionSpec>> = {
  out: { type: 'string', value: 'file', description: 'write the resulting circuit here: OpenQASM 3 for *.qasm, else JSON wire format 0.2' },
  format: { type: 'string', value: 'format', choices: ['json', 'qasm2', 'qasm3'], description: 'the format of --out (default: from its extension)' },
};

function outTarget(input: ParsedInput) {
  const out = strOption(input.options['out']);
  const format = outputFormatFor(out, strOption(input.options['format']));
  return { out, format, outputFormat: format === 'qasm2' || format === 'qasm3' ? format : undefined };
}

export const validateCommand = remoteCommand({
  name: 'circuits validate',
  summary: 'check a circuit; prints every problem at its JSON path (exit 1 when invalid)',
  description: `Sends the circuit to POST /v1/circuits/validate. A valid circuit prints its summary
(and is written normalized to --out); an invalid one prints each problem as
"<JSON path>  <CODE>  <message>" (OpenQASM problems with line and column) and exits 1.`,
  positionals: FILE,
  options: OUT,
  examples: ['qrail circuits validate examples/bell.qasm', 'qrail circuits validate bell.json --out bell.qasm', 'qrail circuits validate bell.json --json | jq .valid'],
  async run(input, svc, ctx) {
    const file = input.positionals[0] ?? '';
    const target = outTarget(input);
    const r = await svc.client.circuits.validate({ circuit: readCircuitFile(file), ...(target.outputFormat === undefined ? {} : { output_format: target.outputFormat }) });
    if (r.valid && target.out !== undefined) writeCircuitFile(target.out, r.circuit, r.qasm ?? undefined);
    if (svc.json) printJson(ctx.io, r);
    if (!r.valid) {
      const n = r.errors.length;
      return reportFailure(ctx.io, svc.json, { code: CIRCUITS_ERRORS.CIRCUIT_INVALID.code, message: `${file} is not a valid circuit (${n} problem${n === 1 ? '' : 's'})`, details: r.errors });
    }
    if (!svc.json) {
      const s = r.summary;
      ctx.io.out(
        `${file}: valid (${s?.input_format ?? '?'}): ${s?.num_qubits ?? '?'} qubits, ${s?.num_clbits ?? '?'} clbits, ${s?.gate_count ?? '?'} gates (${s?.two_qubit_count ?? '?'} two-qubit), depth ${s?.depth ?? '?'}, ${s?.measurement_count ?? '?'} measurements\n`,
      );
      for (const w of r.warnings) ctx.io.err(`warning: ${typeof w === 'string' ? w : JSON.stringify(w)}\n`);
      if (target.out !== undefined) ctx.io.out(`wrote ${target.out}\n`);
    }
    return EXIT.OK;
  },
});

export const analyzeCommand = remoteCommand({
  name: 'circuits analyze',
  summary: 'counts, depth, T-count, device compatibility and entangled pairs of a circuit',
  positionals: FILE,
  options: { devices: { type: 'string', value: 'list', description: 'comma-separated device ids to check compatibility with (default: all)' } },
  examples: ['qrail circuits analyze examples/bell.qasm', 'qrail circuits analyze examples/optimizable.json --devices p2-grid-9,p2-ion-11'],
  async run(input, svc, ctx) {
    const devices = strOption(input.options['devices'])
      ?.split(',')
      .map((d) => d.trim())
      .filter((d) => d !== '');
    const a = await svc.client.circuits.analyze({ circuit: readCircuitFile(input.positionals[0] ?? ''), ...(devices === undefined ? {} : { devices }) });
    if (svc.json) {
      printJson(ctx.io, a);
      return EXIT.OK;
    }
    const kinds = Object.entries(a.counts_by_kind)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    const lines = [
      `qubits ${a.num_qubits} (used ${a.num_qubits_used}), clbits ${a.num_clbits}, depth ${a.depth}`,
      `gates ${a.gate_count}: ${a.two_qubit_count} two-qubit, T-count ${a.t_count}, ${a.measurement_count} measurements (${kinds})`,
      `entangled pairs: ${(a.entanglement.entangled_pairs ?? []).map((p) => `(${p.join(', ')})`).join(' ') || 'none'}`,
      'compatibility:',
      ...a.compatibility.flatMap((p) => p.devices.map((d) => `  ${d.device.padEnd(22)} ${d.status}${d.reasons.length > 0 ? `: ${d.reasons.join('; ')}` : ''}`)),
    ];
    ctx.io.out(`${lines.join('\n')}\n`);
    return EXIT.OK;
  },
});

export const optimizeCommand = remoteCommand({
  name: 'circuits optimize',
  summary: 'optimize a circuit, with a proof that the result is equivalent (up to global phase)',
  description: `POST /v1/circuits/optimize: prints the gate counts before and after, the passes run and
how equivalence was proven; --out writes the optimized circuit. A result
that cannot be proven is refused by the service (OPTIMIZATION_UNVERIFIED, exit 1).
--async (a session is needed) queues it as an optimize job and waits for it with its progress on
stderr: no request is held open for the whole search (the aggressive profile takes up to 60 s).`,
  positionals: FILE,
  options: {
    profile: { type: 'string', value: 'profile', choices: ['safe', 'balanced', 'aggressive'], description: 'how hard to try (default: safe)' },
    hint: { type: 'string', value: 'backend', choices: ['generic', 'provider-one', 'provider-two'], description: 'the backend to optimize for (default: generic)' },
    device: { type: 'string', value: 'device', description: 'optimize for this device: its native gates and coupling map' },
    async: { type: 'boolean', description: 'queue an optimize job and wait for it, showing its progress (needs a session)' },
    timeout: { type: 'string', value: 'seconds', description: 'with --async: give up waiting after this long (the job goes on)' },
    ...OUT,
  },
  examples: ['qrail circuits optimize examples/optimizable.json --profile balanced', 'qrail circuits optimize big.qasm --profile aggressive --hint provider-two --out big.opt.qasm'],
  async run(input, svc, ctx) {
    const target = outTarget(input);
    const profile = strOption(input.options['profile']) as 'safe' | 'balanced' | 'aggressive' | undefined;
    const hint = strOption(input.options['hint']) as 'generic' | 'provider-one' | 'provider-two' | undefined;
    const device = strOption(input.options['device']);
    const body = {
      circuit: readCircuitFile(input.positionals[0] ?? ''),
      ...(profile === undefined ? {} : { profile }),
      ...(hint === undefined ? {} : { backend_hint: hint }),
      ...(device === undefined ? {} : { device }),
      ...(target.outputFormat === undefined ? {} : { output_format: target.outputFormat }),
    };
    const r = input.options['async'] === true ? await optimizeAsync(svc, ctx, body, intOption(input.options['timeout'], 'timeout'), svc.json) : await svc.client.circuits.optimize(body);
    if (target.out !== undefined) writeCircuitFile(target.out, r.circuit, r.qasm ?? undefined);
    if (svc.json) {
      printJson(ctx.io, r);
      return EXIT.OK;
    }
    if (!r.proof.verified) throw new CommandFailure({ code: OPTIMIZATION_ERRORS.OPTIMIZATION_UNVERIFIED.code, message: 'the service returned an unproven result' });
    const b = r.metrics_before;
    const a = r.metrics_after;
    ctx.io.out(
      [
        `optimized (${r.profile}, ${r.backend_hint}${r.device === null ? '' : `, ${r.device}`}) in ${r.elapsed_ms} ms${r.timed_out ? ' — time budget reached, best result so far' : ''}`,
        `  gates      ${String(b.total).padStart(6)} → ${a.total}`,
        `  two-qubit  ${String(b.two_qubit).padStart(6)} → ${a.two_qubit}`,
        `  T-count    ${String(b.t_count).padStart(6)} → ${a.t_count}`,
        `  depth      ${String(b.depth).padStart(6)} → ${a.depth}`,
        `passes: ${r.passes.join(', ') || 'none'}`,
        `proof: verified by ${r.proof.methods.map((m) => m.method).join(' + ')}`,
        ...(target.out === undefined ? [] : [`wrote ${target.out}`]),
      ].join('\n') + '\n',
    );
    for (const w of r.warnings) ctx.io.err(`warning: ${w}\n`);
    return EXIT.OK;
  },
});

/** --async: the job queued, then waited for with its phase and fraction; its result, or its failure as the command's. */
async function optimizeAsync(svc: RemoteService, ctx: CliContext, body: OptimizeBody, timeoutSeconds: number | undefined, quiet: boolean): Promise<OptimizeResult> {
  requireSession(svc);
  const queued = await svc.client.circuits.optimizeAsync(body);
  if (!('job_id' in queued)) return queued; // a circuit with symbolic parameters is answered at once
  const id = queued.job_id;
  const label = (j: OptimizeJob) => (j.status === 'running' && j.progress !== null ? `running (${j.progress.phase} ${Math.round(j.progress.fraction * 100)} %)` : j.status);
  const job = await waitWithProgress<OptimizeJob>(
    ctx,
    { what: `optimize job ${id}`, resume: `GET /v1/circuits/optimize/jobs/${id}`, quiet, ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) },
    (signal, onProgress) => svc.client.circuits.waitForOptimizeJob(id, { signal, onProgress: (j) => onProgress({ ...j, status: label(j) as OptimizeJob['status'] }) }),
  );
  if (job.status === 'completed' && job.result !== null) return job.result;
  throw new CommandFailure({ code: job.error?.code ?? job.status.toUpperCase(), message: job.error?.message ?? `optimize job ${id} ended ${job.status}` });
}
