/** A background loop that `qrail serve --role worker|all` starts and stops. */
export interface BackgroundWorker {
  readonly name: string;
  start(): void;
  /** Stops claiming new work and waits for the current item. */
  stop(): Promise<void>;
}
