/**
 * Experiment (bench only): run each fused block over two threads. The state lives in
 * SharedArrayBuffers; the main thread takes the even chunks, one worker the odd ones,
 * and they meet at an Atomics barrier after every block. Kept out of src/ unless it
 * measures faster (see docs/decisions/simulation-worker-threads.md).
 */
import { Worker } from 'node:worker_threads';
import type { Plan } from '../../src/simulation/plan.js';
import { runBlock } from '../../src/simulation/plan.js';
import { Workspace } from '../../src/simulation/workspace.js';

const WORKER_SRC = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.once('message', async ({ plan, re, im, ctrl, planUrl, wsUrl }) => {
  const { register } = await import('tsx/esm/api');
  register();
  const { runBlock } = await import(planUrl);
  const { Workspace } = await import(wsUrl);
  const R = new Float64Array(re), I = new Float64Array(im), C = new Int32Array(ctrl);
  const L = plan.width, ws = new Workspace();
  Atomics.store(C, 3, 1); Atomics.notify(C, 3);
  let seq = 0;
  for (;;) {
    Atomics.wait(C, 0, seq);
    seq = Atomics.load(C, 0);
    const b = Atomics.load(C, 2);
    if (b < 0) break;
    runBlock(plan.blocks[b], plan.numQubits, L, R, I, ws, () => {}, 1, 2);
    Atomics.store(C, 1, seq); Atomics.notify(C, 1);
  }
});
`;

export class TwoThreadRunner {
  private constructor(
    private readonly worker: Worker,
    private readonly ctrl: Int32Array,
    private readonly plan: Plan,
    readonly re: Float64Array,
    readonly im: Float64Array,
  ) {}

  private readonly ws = new Workspace();

  static async start(plan: Plan): Promise<TwoThreadRunner> {
    const dim = 2 ** plan.numQubits;
    const reBuf = new SharedArrayBuffer(8 * dim);
    const imBuf = new SharedArrayBuffer(8 * dim);
    const ctrlBuf = new SharedArrayBuffer(16);
    const ctrl = new Int32Array(ctrlBuf);
    // The worker registers tsx and loads the same TypeScript module.
    const worker = new Worker(WORKER_SRC, { eval: true });
    const planUrl = new URL('../../src/simulation/plan.ts', import.meta.url).href;
    const wsUrl = new URL('../../src/simulation/workspace.ts', import.meta.url).href;
    worker.postMessage({ plan, re: reBuf, im: imBuf, ctrl: ctrlBuf, planUrl, wsUrl });
    while (Atomics.load(ctrl, 3) !== 1) await new Promise((r) => setTimeout(r, 5));
    return new TwoThreadRunner(worker, ctrl, plan, new Float64Array(reBuf), new Float64Array(imBuf));
  }

  /** Runs the whole plan on the shared state (synchronous on the main thread). */
  run(): void {
    const p = this.plan;
    const L = p.width;
    const c = this.ctrl;
    for (let b = 0; b < p.blocks.length; b++) {
      const seq = Atomics.load(c, 0) + 1;
      Atomics.store(c, 2, b);
      Atomics.store(c, 0, seq);
      Atomics.notify(c, 0);
      runBlock(p.blocks[b]!, p.numQubits, L, this.re, this.im, this.ws, () => {}, 0, 2);
      // Wait on the value just read: re-reading it for the wait could see `seq` already
      // (the worker finished in between) and then block forever on an unchanged word.
      for (let cur = Atomics.load(c, 1); cur !== seq; cur = Atomics.load(c, 1)) Atomics.wait(c, 1, cur);
    }
  }

  async stop(): Promise<void> {
    Atomics.store(this.ctrl, 2, -1);
    Atomics.add(this.ctrl, 0, 1);
    Atomics.notify(this.ctrl, 0);
    await this.worker.terminate();
  }
}
