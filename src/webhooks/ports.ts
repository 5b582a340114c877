/** What outbound webhooks need from the outside world; adapters live in src/webhooks/adapters and src/store/webhooks. */
import type { WebhookEvent } from './events.js';

/** DNS: every address a host name resolves to (an IP literal resolves to itself). */
/**
 * Why an address may not be a webhook target (its special-purpose block: 'loopback',
 * 'documentation', …), or null when it is globally reachable. The adapter is
 * adapters/special-purpose-addresses.ts (the IANA registries, checked with node:net's BlockList).
 */
export type AddressClassifier = (address: string) => string | null;

export interface HostResolver {
  resolve(host: string): Promise<string[]>;
}

export interface OutboundRequest {
  readonly url: URL;
  /** The checked address to connect to (the URL's host stays the Host header and TLS name). */
  readonly address: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

/** A response (any status), or a transport error (`statusCode` null, `error` says what). */
export interface OutboundResult {
  readonly statusCode: number | null;
  readonly error: string | null;
  /** At most the first 512 characters of the response body. */
  readonly excerpt: string | null;
}

export interface WebhookSender {
  send(req: OutboundRequest): Promise<OutboundResult>;
}

export type EndpointStatus = 'enabled' | 'disabled' | 'deleted';

export interface EndpointRecord {
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  readonly description: string | null;
  readonly eventTypes: readonly string[];
  readonly secret: string;
  readonly status: EndpointStatus;
  readonly disabledReason: string | null;
  readonly disabledAt: Date | null;
  readonly failingSince: Date | null;
  readonly createdAt: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface AttemptRecord {
  readonly attempt: number;
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
}

export interface DeliveryRecord {
  readonly id: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly sequence: number;
  readonly manual: boolean;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly firstAttemptAt: Date | null;
  readonly lastAttemptAt: Date | null;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
}

export interface ClaimedDelivery {
  readonly delivery: DeliveryRecord;
  readonly endpoint: EndpointRecord;
  readonly event: WebhookEvent;
}

export interface Page {
  readonly limit: number;
  readonly before?: { readonly createdAtMicros: bigint; readonly id: string } | undefined;
}

/** What one attempt decided (src/webhooks/delivery-worker.ts owns the rule). */
export type AttemptOutcome = { readonly kind: 'succeeded' } | { readonly kind: 'retry'; readonly at: Date } | { readonly kind: 'failed' };

export interface AttemptReport {
  readonly deliveryId: string;
  readonly owner: string;
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly result: OutboundResult;
  readonly outcome: AttemptOutcome;
  /** On a failure: disable the endpoint when it has been failing since this time or earlier. */
  readonly disableIfFailingSince: Date;
}

export interface WebhookStore {
  /** Inserts the endpoint unless the account has `maxPerAccount` live ones already. */
  createEndpoint(
    e: { id: string; accountId: string; url: string; description: string | null; eventTypes: readonly string[]; secret: string },
    maxPerAccount: number,
  ): Promise<EndpointRecord | 'limit'>;
  listEndpoints(accountId: string): Promise<EndpointRecord[]>;
  getEndpoint(accountId: string, id: string): Promise<EndpointRecord | null>;
  /** Marks it deleted and cancels its pending deliveries; false when there was none. */
  deleteEndpoint(accountId: string, id: string): Promise<boolean>;
  /** Enables a disabled endpoint (its pending deliveries resume, in order). */
  enableEndpoint(accountId: string, id: string): Promise<EndpointRecord | null>;
  listDeliveries(endpointId: string, page: Page, status?: DeliveryStatus): Promise<DeliveryRecord[]>;
  attemptsOf(deliveryIds: readonly string[]): Promise<Map<string, AttemptRecord[]>>;
  getDelivery(accountId: string, id: string): Promise<(DeliveryRecord & { readonly endpointStatus: EndpointStatus }) | null>;
  /** A new manual delivery of the same event to the same endpoint. */
  redeliver(accountId: string, id: string): Promise<DeliveryRecord | null>;
  listEvents(accountId: string, page: Page, type?: string): Promise<WebhookEvent[]>;
  getEvent(accountId: string, id: string): Promise<WebhookEvent | null>;

  /** Numbers committed events per account and fans them out to endpoints; how many it numbered. */
  dispatch(limit: number): Promise<number>;
  /** Leases due deliveries: per endpoint only the lowest pending sequence (manual ones beside it). */
  claim(owner: string, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Logs the attempt and applies its outcome, under the lease; whether the endpoint got disabled. */
  recordAttempt(r: AttemptReport): Promise<{ endpointDisabled: boolean }>;
}
