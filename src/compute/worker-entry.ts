/**
 * A compute worker thread: runs one task at a time from COMPUTE_TASKS and replies with the plain
 * result or an encoded error. Loaded by worker-bootstrap.js (which makes TypeScript importable here).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { COMPUTE_TASKS, type ComputeTaskName, type TaskContext } from './compute-tasks.js';
import { encodeError, type TaskProgressMessage, type TaskReply, type TaskRequest } from './task-protocol.js';

/** At most one progress message per this many ms (a task may report after every block of gates). */
const PROGRESS_EVERY_MS = 200;

const maybePort = parentPort;
if (maybePort === null) throw new Error('src/compute/worker-entry.ts runs only inside a worker thread');
const port = maybePort;
// The pool writes here the id of the task it gave up on (a synchronous task cannot read messages).
const cancelFlag = (workerData as { cancelFlag?: Int32Array } | null)?.cancelFlag;

async function handle(msg: TaskRequest): Promise<TaskReply> {
  try {
    if (!Object.hasOwn(COMPUTE_TASKS, msg.task)) throw new Error(`unknown compute task "${msg.task}"`);
    const run = COMPUTE_TASKS[msg.task as ComputeTaskName] as (input: unknown, ctx: TaskContext) => unknown;
    let lastProgress = 0;
    const ctx: TaskContext = {
      cancelled: () => cancelFlag !== undefined && Atomics.load(cancelFlag, 0) === msg.id,
      progress: (fraction, phase) => {
        const now = Date.now();
        if (now - lastProgress < PROGRESS_EVERY_MS) return;
        lastProgress = now;
        port.postMessage({ id: msg.id, progress: { fraction, phase } } satisfies TaskProgressMessage);
      },
    };
    return { id: msg.id, ok: true, output: await run(msg.input, ctx) };
  } catch (e) {
    return { id: msg.id, ok: false, error: encodeError(e) };
  }
}

port.on('message', (msg: TaskRequest) => {
  void handle(msg).then((reply) => {
    try {
      port.postMessage(reply);
    } catch (e) {
      // A result (or error details) that cannot be cloned still answers, as a 500.
      port.postMessage({ id: msg.id, ok: false, error: encodeError(e) } satisfies TaskReply);
    }
  });
});
