/**
 * Continuing a held hardware job (docs/execution.md#holds-for-n-tasks): a hold for `tasks: N`
 * runs up to N circuits in all, in one or several continuations. Each continuation takes its
 * tasks and queues one job per circuit in one transaction under the held job's lock, so racing
 * continuations never take more than N; the money moves in billing's takeHeldTasks.
 */
import type { Circuit } from '../circuits/ir.js';
import type { ProviderId } from '../devices/device-catalogue.js';
import { toWire } from '../circuits/wire-format.js';
import { fail } from '../errors/app-error.js';
import { BILLING_ERRORS } from '../billing/error-codes.js';
import type { ResolvedDevice } from './device-directory.js';
import { EXECUTION_ERRORS } from './error-codes.js';
import type { ExecutionJob } from './execution-job.js';
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
 * Takes one task of the held job per circuit and queues a job for each, in one transaction
 * under the held job's lock (wallet, held job, hold), so concurrent continuations together
 * never take more than its `tasks`. Each job gets a hold of the quote's per-task price
 * (captured when it completes, released when it fails); the untaken tasks stay held.
 */
export async function continueHeldTasks(
  deps: ContinuationDeps,
  c: { accountId: string; jobId: string; provider: ProviderId; circuits: readonly Circuit[]; token: string; hash: string; seed: number | undefined },
): Promise<ExecutionJob[]> {
  const { accountId, jobId, provider, circuits, token, hash } = c;
  const held = await deps.store.heldJob(jobId);
  if (held === null || held.accountId !== accountId || held.provider !== provider) throw fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_FOUND, `No held job ${jobId} of ${provider} for this account.`);
  refuseNotContinuable(held);
  refuseTooManyTasks(held, circuits.length);
  const d = await deps.hardwareDevice(provider, held.device);
  if (!(await deps.hardwareAllowed(accountId))) {
    throw fail(BILLING_ERRORS.HARDWARE_DISABLED, 'Hardware spending is turned off in the spend controls; the held funds stay held until released or expired.', { limit: 'hardware_allowed' });
  }
  const translations = circuits.map((c) => translateForDevice(c, d.profile.spec));
  const seed = c.seed ?? deps.randomSeed();
  const perTask = held.amountMicros / BigInt(Math.max(1, held.tasks));
  const rows = await deps.store.tx(async (t) => {
    // The lock order of every held-job change (wallet, held job, hold: see lockHeldJob); a
    // release, expiry or other continuation that committed while this request was translating is seen here.
    const current = await t.lockHeldJob(accountId, jobId);
    if (current === null) throw fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_FOUND, `No held job ${jobId} for this account.`);
    refuseNotContinuable(current);
    refuseTooManyTasks(current, circuits.length);
    const taken = await t.takeHeldTasks(current, circuits.length);
    if (taken === null) throw fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_CONTINUABLE, 'The held job was just continued, released or expired.', { job_id: jobId, status: current.status });
    const out: ExecutionJob[] = [];
    for (const [i, circuit] of circuits.entries()) {
      const translation = translations[i] as (typeof translations)[number];
      const holdId = taken.holdIds[i] as string;
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
        circuit: toWire(circuit),
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
        estimatedMicros: perTask,
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
