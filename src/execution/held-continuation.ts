/**
 * Continuing a held hardware job (docs/execution.md#holds-for-n-tasks): a hold for `tasks: N`
 * runs up to N circuits in all, in one or several continuations. Each continuation takes its
 * tasks and queues one job per circuit in one transaction under the held job's lock, so racing
 * continuations never take more than N; the money moves in billing's takeHeldTasks.
 */
import type { ProviderId } from '../devices/device-catalogue.js';
import { toWire } from '../circuits/wire-format.js';
import { fail } from '../errors/app-error.js';
import { BILLING_ERRORS } from '../billing/error-codes.js';
import type { ResolvedDevice } from './device-directory.js';
import { EXECUTION_ERRORS } from './error-codes.js';
import type { ExecutionJob } from './execution-job.js';
import type { HardwareRunPlan } from './hardware-workload.js';
import type { ExecutionStore, HeldJob } from './ports.js';
import type { ExecutionSettings } from './settings.js';
import { translateForDevice } from './translate/translate-for-device.js';

export interface ContinuationDeps {
  readonly store: ExecutionStore;
  readonly settings: ExecutionSettings;
  readonly hardwareAllowed: (accountId: string) => Promise<boolean>;
  readonly afterDebit: (accountId: string) => void;
  readonly newId: () => string;
  readonly randomSeed: () => number;
  /** The held job's device, known, hardware and available now (else the 404/409 a run would answer). */
  readonly hardwareDevice: (provider: ProviderId, id: string) => Promise<ResolvedDevice>;
}

/** 409 unless the held job is `held` and not past its expiry (the sweeper may not have run yet). */
export function refuseNotContinuable(held: HeldJob): void {
  const expired = held.status === 'held' && held.expiresAt.getTime() <= Date.now();
  if (held.status === 'held' && !expired) return;
  const status = expired ? 'expired' : held.status;
  throw fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_CONTINUABLE, `The held job is ${status}; it cannot be continued.`, { job_id: held.jobId, status });
}

/** 409 when the held job has fewer tasks left than the continuation asks for. */
export function refuseTooManyTasks(held: HeldJob, requested: number): void {
  const remaining = held.tasks - held.tasksUsed;
  if (requested <= remaining) return;
  throw fail(EXECUTION_ERRORS.EXECUTION_HELD_TASKS_EXCEEDED, `The held job has ${remaining} of ${held.tasks} task(s) left; ${requested} were asked for.`, {
    job_id: held.jobId,
    tasks: held.tasks,
    tasks_used: held.tasksUsed,
    tasks_remaining: remaining,
    requested,
  });
}

/**
 * Takes one task of the held job per circuit run and queues a job for each run (a run of an
 * expectation has a task per measurement group), in one transaction under the held job's lock
 * (wallet, held job, hold), so concurrent continuations together never take more than its
 * `tasks`. Each job gets a hold of its tasks' price (captured when it completes, released when
 * it fails); the untaken tasks stay held. `runs` plans the runs on the resolved device.
 */
export async function continueHeldTasks(
  deps: ContinuationDeps,
  c: { accountId: string; jobId: string; provider: ProviderId; runs: (d: ResolvedDevice, shots: number) => readonly HardwareRunPlan[]; token: string; hash: string; seed: number | undefined },
): Promise<ExecutionJob[]> {
  const { accountId, jobId, provider, token, hash } = c;
  const held = await deps.store.heldJob(jobId);
  if (held === null || held.accountId !== accountId || held.provider !== provider) throw fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_FOUND, `No held job ${jobId} of ${provider} for this account.`);
  refuseNotContinuable(held);
  const d = await deps.hardwareDevice(provider, held.device);
  // The result types are checked against the device (and the held job's shots) before any task is taken.
  const runs = c.runs(d, held.shots);
  // One task per circuit run: an expectation's measurement groups are a task each.
  const sizes = runs.map((r) => r.tasks.length);
  const count = sizes.reduce((a, b) => a + b, 0);
  refuseTooManyTasks(held, count);
  if (!(await deps.hardwareAllowed(accountId))) {
    throw fail(BILLING_ERRORS.HARDWARE_DISABLED, 'Hardware spending is turned off in the spend controls; the held funds stay held until released or expired.', { limit: 'hardware_allowed' });
  }
  const translated = runs.map((r) => r.tasks.map((t) => translateForDevice(t, d.profile.spec)));
  const seed = c.seed ?? deps.randomSeed();
  const perTask = held.amountMicros / BigInt(Math.max(1, held.tasks));
  const rows = await deps.store.tx(async (t) => {
    // The lock order of every held-job change (wallet, held job, hold: see lockHeldJob); a
    // release, expiry or other continuation that committed while this request was translating is seen here.
    const current = await t.lockHeldJob(accountId, jobId);
    if (current === null) throw fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_FOUND, `No held job ${jobId} for this account.`);
    refuseNotContinuable(current);
    refuseTooManyTasks(current, count);
    const plainRuns = sizes.every((k) => k === 1);
    const taken = await t.takeHeldTasks(current, count, plainRuns ? undefined : sizes);
    if (taken === null) throw fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_CONTINUABLE, 'The held job was just continued, released or expired.', { job_id: jobId, status: current.status });
    const out: ExecutionJob[] = [];
    for (const [i, run] of runs.entries()) {
      const translations = translated[i]!;
      const translation = translations[0]!;
      const holdId = taken.holdIds[i] as string;
      // The job's tasks' circuits as translated, for the worker (the view shows the first task's translation).
      const runOptions = run.runOptions === null ? null : { ...run.runOptions, hardware: { ...run.runOptions.hardware, circuits: translations.map((x) => toWire(x.circuit)) } };
      // The held job's first task keeps its id (GET …/{held job id} reads its run, as with one task).
      const r = await t.insertJob({
        id: current.tasksUsed === 0 && i === 0 ? jobId : deps.newId(),
        accountId,
        clientToken: i === 0 ? token : `${token}#${i}`,
        requestHash: hash,
        provider,
        device: held.device,
        kind: 'hardware',
        driver: d.profile.driver === 'remote' ? 'remote' : 'emulated',
        status: 'queued',
        shots: held.shots,
        seed: seed + i,
        circuit: toWire(run.circuit),
        translation: {
          circuit: toWire(translation.circuit),
          initial_layout: translation.initialLayout,
          final_layout: translation.finalLayout,
          swaps_inserted: translation.swapsInserted,
          gates_before: translation.gatesBefore,
          gates_after: translation.gatesAfter,
          two_qubit_gates_after: translation.twoQubitGatesAfter,
          verification: translation.verification,
        },
        holdId,
        // The run is the spend of whoever held the job (its holds count against their budget).
        submittedBy: current.submittedBy,
        estimatedMicros: perTask * BigInt(sizes[i]!),
        ...(runOptions === null ? {} : { runOptions }),
      });
      if (r === null) throw fail(EXECUTION_ERRORS.EXECUTION_CLIENT_TOKEN_IN_PROGRESS, 'A request with this client_token is being processed; retry it.');
      await t.extendHoldExpiry(holdId, deps.settings.runWindowSeconds);
      out.push(r);
    }
    return out;
  });
  deps.afterDebit(accountId);
  return rows;
}
