/**
 * A capability of the live catalog (DESIGN §4): what an agent can buy as a prepaid job.
 * One file per capability under `capabilities/`; each calls the same domain code as the
 * platform endpoint it mirrors.
 */
export type Product = 'product-one' | 'product-two' | 'robotics';

/** A JSON Schema (draft 2020-12 subset Ajv understands) describing `request`. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface PricingRule {
  /** Human-readable formula, e.g. "0.000100 + 0.000001 × shots × 2^max(0, qubits − 10)". */
  readonly formula: string;
  /** The constants of the formula as six-decimal USD strings or plain numbers. */
  readonly parameters: Readonly<Record<string, string | number>>;
}

export interface PriceQuote {
  readonly priceMicros: bigint;
  /** The inputs and intermediate terms of the formula for this request (shown in `quote.breakdown`). */
  readonly breakdown: Readonly<Record<string, string | number>>;
}

export interface RunContext {
  readonly jobId: string;
  readonly accountId: string;
  readonly attempt: number;
  /** Aborted when the job's cancel was requested: stop (compute tasks given it are aborted). */
  readonly signal: AbortSignal;
}

/** A receipt line: one item of a batch job, what was reserved for it and what it was charged. */
export interface ReceiptLine {
  readonly index: number;
  readonly status: 'completed' | 'failed';
  readonly amount_reserved: string;
  readonly amount_captured: string;
  readonly amount_released: string;
  readonly error_code?: string;
}

/** What a completed job is charged when it is not its whole reservation (a batch: the items that completed). */
export interface JobCharge {
  /** At most the reserved price; the rest is released in the transaction that captures this. */
  readonly captureMicros: bigint;
  readonly lines: readonly ReceiptLine[];
}

/** Whether a capability can run on this deployment now; when not, why (shown in the catalog, and a submission gets 503). */
export type Availability = { readonly available: true } | { readonly available: false; readonly reason: string };

export interface Capability<P = unknown> {
  readonly id: string;
  readonly product: Product;
  readonly title: string;
  readonly description: string;
  readonly pricing: PricingRule;
  readonly requestSchema: JsonSchema;
  /** What submissions are validated against, when looser than the published schema (default requestSchema). */
  readonly validationSchema?: JsonSchema;
  readonly example: Readonly<Record<string, unknown>>;
  /**
   * What happens to a job caught in `running` when its worker dies (lease expired):
   * `rerun` for pure, deterministic work that is safe to run twice (nothing is charged
   * until a result is saved); `fail` for work with outside effects.
   */
  readonly onInterrupted: 'rerun' | 'fail';
  /**
   * Checks beyond the JSON Schema and parses the request once (e.g. the circuit). Throws an
   * AppError whose detail paths are relative to `request` (they get a `/request` prefix).
   */
  prepare(request: Readonly<Record<string, unknown>>): P;
  quote(prepared: P): PriceQuote;
  /** Produces the job's `result` object. Throw an AppError to fail the job with its code. */
  run(prepared: P, ctx: RunContext): Promise<Record<string, unknown>>;
  /**
   * What the result is charged, with a receipt line per item, when that is less than the quote
   * (a batch whose items partly failed); absent, a completed job is charged its quoted price.
   */
  charge?(prepared: P, result: Record<string, unknown>): JobCharge;
  /**
   * Whether it can run now (an engine or a device it needs is ready); always, when absent. Checked
   * for the catalog and before a submission reserves anything. Never throws.
   */
  availability?(): Promise<Availability>;
}

const ID = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/;

/** The live catalog. Capabilities are registered once at start-up (tests may add their own). */
export class CapabilityRegistry {
  private readonly byId = new Map<string, Capability>();

  constructor(capabilities: readonly Capability[] = []) {
    for (const c of capabilities) this.register(c);
  }

  register<P>(c: Capability<P>): void {
    if (!ID.test(c.id) || c.id.length > 128) throw new Error(`capability id ${c.id} is not a lowercase dotted name`);
    if (this.byId.has(c.id)) throw new Error(`capability ${c.id} registered twice`);
    this.byId.set(c.id, c);
  }

  /** Removes a capability from the catalog (tests; queued jobs of it then fail as CAPABILITY_UNAVAILABLE). */
  unregister(id: string): void {
    this.byId.delete(id);
  }

  get(id: string): Capability | undefined {
    return this.byId.get(id);
  }

  list(): Capability[] {
    return [...this.byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }
}

/** `2^e` as a bigint factor, for prices that grow with the state-vector size. */
export function pow2(e: number): bigint {
  return 1n << BigInt(Math.max(0, Math.floor(e)));
}
