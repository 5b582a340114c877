/** Bounded concurrency with a bounded wait queue: `tryAcquire` answers undefined when both are full. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly maxQueue: number,
  ) {}

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves to a release function once a slot is free; undefined at once when the queue is full. */
  tryAcquire(): Promise<() => void> | undefined {
    if (this.active < this.max) {
      this.active += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxQueue) return undefined;
    return new Promise((resolve) => {
      this.waiting.push(() => resolve(this.releaser()));
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; `active` stays the same.
      if (next !== undefined) next();
      else this.active -= 1;
    };
  }
}
