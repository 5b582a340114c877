/** Endpoint registration, the delivery log, redelivery and the event list (docs/webhooks.md). */
import { randomUUID } from 'node:crypto';
import { fail } from '../errors/app-error.js';
import { WEBHOOKS_ERRORS } from './error-codes.js';
import type { WebhookEvent } from './events.js';
import type { AddressClassifier, AttemptRecord, DeliveryRecord, DeliveryStatus, EndpointRecord, HostResolver, Page, WebhookStore } from './ports.js';
import type { WebhookSettings } from './settings.js';
import { newSigningSecret } from './signature.js';
import { checkTarget } from './target-guard.js';

/** Endpoints per account: enough for a few environments and tools, small enough to list in one page. */
export const MAX_ENDPOINTS = 16;

export interface NewEndpoint {
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly description?: string | undefined;
}

export class WebhookService {
  constructor(
    private readonly store: WebhookStore,
    private readonly resolver: HostResolver,
    readonly settings: WebhookSettings,
    private readonly classify: AddressClassifier,
  ) {}

  /** Registers an endpoint; the answer carries the signing secret, the only time it is shown. */
  async create(accountId: string, e: NewEndpoint): Promise<{ endpoint: EndpointRecord; secret: string }> {
    const target = await checkTarget(e.url, { resolver: this.resolver, classify: this.classify, allowPrivate: this.settings.allowPrivateTargets });
    const secret = newSigningSecret();
    const types = [...new Set(e.eventTypes)];
    const r = await this.store.createEndpoint({ id: randomUUID(), accountId, url: target.url.href, description: e.description ?? null, eventTypes: types, secret }, MAX_ENDPOINTS);
    if (r === 'limit') throw fail(WEBHOOKS_ERRORS.WEBHOOK_ENDPOINT_LIMIT, `An account has at most ${MAX_ENDPOINTS} webhook endpoints.`, { limit: MAX_ENDPOINTS });
    return { endpoint: r, secret };
  }

  list(accountId: string): Promise<EndpointRecord[]> {
    return this.store.listEndpoints(accountId);
  }

  async get(accountId: string, id: string): Promise<EndpointRecord> {
    const e = await this.store.getEndpoint(accountId, id);
    if (e === null) throw fail(WEBHOOKS_ERRORS.WEBHOOK_ENDPOINT_NOT_FOUND, 'No such webhook endpoint.');
    return e;
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.store.deleteEndpoint(accountId, id))) throw fail(WEBHOOKS_ERRORS.WEBHOOK_ENDPOINT_NOT_FOUND, 'No such webhook endpoint.');
  }

  async enable(accountId: string, id: string): Promise<EndpointRecord> {
    const e = await this.store.enableEndpoint(accountId, id);
    if (e === null) throw fail(WEBHOOKS_ERRORS.WEBHOOK_ENDPOINT_NOT_FOUND, 'No such webhook endpoint.');
    return e;
  }

  async deliveries(accountId: string, endpointId: string, page: Page, status?: DeliveryStatus): Promise<Array<{ delivery: DeliveryRecord; attempts: AttemptRecord[] }>> {
    await this.get(accountId, endpointId);
    const rows = await this.store.listDeliveries(endpointId, page, status);
    const log = await this.store.attemptsOf(rows.map((d) => d.id));
    return rows.map((d) => ({ delivery: d, attempts: log.get(d.id) ?? [] }));
  }

  /** Sends the delivery's event again as a new (manual) delivery, beside the ordered stream. */
  async redeliver(accountId: string, deliveryId: string): Promise<DeliveryRecord> {
    const d = await this.store.getDelivery(accountId, deliveryId);
    if (d === null) throw fail(WEBHOOKS_ERRORS.WEBHOOK_DELIVERY_NOT_FOUND, 'No such webhook delivery.');
    if (d.endpointStatus !== 'enabled') throw fail(WEBHOOKS_ERRORS.WEBHOOK_ENDPOINT_DISABLED, `The endpoint is ${d.endpointStatus}.`, { endpoint_status: d.endpointStatus });
    const r = await this.store.redeliver(accountId, deliveryId);
    if (r === null) throw fail(WEBHOOKS_ERRORS.WEBHOOK_DELIVERY_NOT_FOUND, 'No such webhook delivery.');
    return r;
  }

  events(accountId: string, page: Page, type?: string): Promise<WebhookEvent[]> {
    return this.store.listEvents(accountId, page, type);
  }
}
