/**
 * The event catalog of outbound webhooks (docs/webhooks.md#event-catalog). The SQL triggers of
 * migration 0900 write these types (the organization events are written with the audit event
 * of the change, src/store/orgs/org-repository.ts); this list is what an endpoint may subscribe to.
 */
export const WEBHOOK_EVENT_TYPES = [
  'job.queued',
  'job.running',
  'job.completed',
  'job.failed',
  'execution_job.queued',
  'execution_job.running',
  'execution_job.completed',
  'execution_job.failed',
  'hold.expired',
  'wallet.low_balance',
  'auto_recharge.succeeded',
  'auto_recharge.failed',
  'auto_recharge.paused',
  'webhook_endpoint.disabled',
  'org.member.invited',
  'org.member.joined',
  'org.member.role_changed',
  'org.member.removed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** An endpoint's subscription: listed types, or `*` for every type (present and future). */
export const ALL_EVENTS = '*';

export interface WebhookEvent {
  readonly id: string;
  readonly type: string;
  readonly accountId: string;
  /** Per-account, gap-free, assigned when the event is dispatched; null until then. */
  readonly sequence: number | null;
  readonly createdAt: Date;
  readonly data: Record<string, unknown>;
}

/** The event as delivered and listed (DESIGN §11: `{id, type, created_at, account_id, data}` plus the sequence). */
export function eventBody(e: WebhookEvent): { id: string; type: string; created_at: string; account_id: string; sequence: number | null; data: Record<string, unknown> } {
  return { id: e.id, type: e.type, created_at: e.createdAt.toISOString(), account_id: e.accountId, sequence: e.sequence, data: e.data };
}
