import type { Meter } from '../../telemetry/meter.js';
import type { PaymentProcessor } from './processor.js';

// The port's calls that reach the processor; a sandbox's own helpers pass through uncounted.
const OPERATIONS: ReadonlySet<string> = new Set<keyof PaymentProcessor>([
  'createCustomer',
  'createSetupIntent',
  'createPaymentIntent',
  'createCheckoutSession',
  'retrieveCheckoutSession',
  'createPortalSession',
]);

/** The processor with every call counted by operation (the port's method name) and outcome (`ok`, `error`). */
export function meteredProcessor<P extends PaymentProcessor>(processor: P, meter: Meter): P {
  return new Proxy(processor, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      // Bound to the processor itself, so its private state is reached whatever the call site.
      if (typeof prop !== 'string' || !OPERATIONS.has(prop)) return (v as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        try {
          const out: unknown = await (v as (...a: unknown[]) => unknown).apply(target, args);
          meter.inc('qrail_processor_calls_total', { operation: prop, outcome: 'ok' });
          return out;
        } catch (e) {
          meter.inc('qrail_processor_calls_total', { operation: prop, outcome: 'error' });
          throw e;
        }
      };
    },
  });
}
