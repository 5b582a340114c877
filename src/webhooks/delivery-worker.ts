/**
 * The delivery loop (docs/webhooks.md#delivery): number and fan out new outbox events, lease the
 * due deliveries (at most one in flight per endpoint, lowest sequence first), send each signed,
 * and record the attempt with its outcome. Runs in the worker role like the job workers; several
 * processes can run it at once (each claim locks its rows and skips those another process holds).
 */
import type { Meter } from '../telemetry/meter.js';
import { randomUUID } from 'node:crypto';
import type { BackgroundWorker } from '../worker.js';
import { eventBody } from './events.js';
import type { AddressClassifier, AttemptOutcome, ClaimedDelivery, HostResolver, OutboundResult, WebhookSender, WebhookStore } from './ports.js';
import { retryDelayMs, type WebhookSettings } from './settings.js';
import { SIGNATURE_HEADER, signWebhook } from './signature.js';
import { checkTarget } from './target-guard.js';
import { isAppError } from '../errors/app-error.js';

export interface DeliveryWorkerDeps {
  readonly store: WebhookStore;
  readonly resolver: HostResolver;
  /** The special-purpose address table, checked again before every attempt. */
  readonly classify: AddressClassifier;
  readonly sender: WebhookSender;
  readonly settings: WebhookSettings;
  readonly userAgent: string;
  readonly onError?: (e: unknown) => void;
  readonly now?: () => Date;
  /** Attempts by outcome (succeeded, retry, failed). */
  readonly meter?: Meter;
}

/**
 * What the rule says after one attempt: 2xx succeeds; any other answer or none is retried on the
 * backoff schedule, and given up at the first failure once the window since the first attempt is spent.
 */
export function outcomeOf(s: WebhookSettings, result: OutboundResult, attempt: number, firstAttemptAt: Date, now: Date): AttemptOutcome {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return { kind: 'succeeded' };
  if (now.getTime() - firstAttemptAt.getTime() >= s.retryWindowMs) return { kind: 'failed' };
  return { kind: 'retry', at: new Date(now.getTime() + retryDelayMs(s, attempt)) };
}

export class WebhookDeliveryWorker implements BackgroundWorker {
  readonly name = 'webhook-delivery';
  readonly id = `webhooks-${randomUUID()}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;

  constructor(private readonly deps: DeliveryWorkerDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** One pass: dispatch, claim, send, record. Returns how many deliveries were attempted. */
  async runOnce(): Promise<number> {
    const { store, settings } = this.deps;
    while ((await store.dispatch(500)) === 500);
    const claimed = await store.claim(this.id, settings.leaseMs, settings.concurrency);
    await Promise.all(claimed.map((c) => this.deliver(c)));
    return claimed.length;
  }

  private async deliver(c: ClaimedDelivery): Promise<void> {
    const { settings } = this.deps;
    const body = JSON.stringify(eventBody(c.event));
    const startedAt = this.now();
    let result: OutboundResult;
    try {
      const target = await checkTarget(c.endpoint.url, { resolver: this.deps.resolver, classify: this.deps.classify, allowPrivate: settings.allowPrivateTargets });
      const t = Math.floor(startedAt.getTime() / 1000);
      result = await this.deps.sender.send({
        url: target.url,
        address: target.addresses[0] ?? '',
        body,
        timeoutMs: settings.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'user-agent': this.deps.userAgent,
          [SIGNATURE_HEADER]: signWebhook(body, c.endpoint.secret, t),
          'qrail-event-id': c.event.id,
          'qrail-event-type': c.event.type,
          'qrail-event-sequence': String(c.event.sequence ?? ''),
          'qrail-delivery-id': c.delivery.id,
        },
      });
    } catch (e) {
      // A target that now resolves somewhere forbidden (or nowhere) is a failed attempt like any other.
      result = { statusCode: null, error: isAppError(e) ? `${e.code}: ${e.message}` : String(e), excerpt: null };
    }
    const done = this.now();
    const outcome = outcomeOf(settings, result, c.delivery.attempts, c.delivery.firstAttemptAt ?? startedAt, done);
    await this.deps.store.recordAttempt({
      deliveryId: c.delivery.id,
      owner: this.id,
      startedAt,
      durationMs: Math.max(0, done.getTime() - startedAt.getTime()),
      result,
      outcome,
      disableIfFailingSince: new Date(done.getTime() - settings.disableAfterMs),
    });
    this.deps.meter?.inc('qrail_webhook_deliveries_total', { outcome: outcome.kind });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const tick = () => {
      this.running = this.runOnce()
        .catch((e: unknown) => this.deps.onError?.(e))
        .then((n) => {
          if (this.stopped) return;
          // Straight on while there is work; otherwise wait a poll interval.
          this.timer = setTimeout(tick, typeof n === 'number' && n > 0 ? 0 : this.deps.settings.pollMs);
          this.timer.unref();
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
