/**
 * Outbound webhooks' store (src/webhooks/ports.ts) over PostgreSQL/PGlite. The outbox rows are
 * written by migration 0900's triggers; this file numbers and fans them out (webhook_dispatch),
 * leases deliveries and records attempts.
 */
import type { WebhookEvent } from '../../webhooks/events.js';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus, EndpointRecord, EndpointStatus, Page, WebhookStore } from '../../webhooks/ports.js';
import type { Database, Queryable } from '../db.js';

interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  secret: string;
  status: EndpointStatus;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  sequence: string;
  manual: boolean;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  first_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

interface EventRow {
  id: string;
  account_id: string;
  type: string;
  data: Record<string, unknown>;
  sequence: string | null;
  created_at: Date;
}

const endpointOf = (r: EndpointRow): EndpointRecord => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types,
  secret: r.secret,
  status: r.status,
  disabledReason: r.disabled_reason,
  disabledAt: r.disabled_at,
  failingSince: r.failing_since,
  createdAt: r.created_at,
});

const deliveryOf = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  eventType: r.event_type,
  sequence: Number(r.sequence),
  manual: r.manual,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
  firstAttemptAt: r.first_attempt_at,
  lastAttemptAt: r.last_attempt_at,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  createdAt: r.created_at,
  completedAt: r.completed_at,
});

const eventOf = (r: EventRow): WebhookEvent => ({
  id: r.id,
  type: r.type,
  accountId: r.account_id,
  sequence: r.sequence === null ? null : Number(r.sequence),
  createdAt: r.created_at,
  data: r.data,
});

const DELIVERY_COLUMNS = `d.id, d.endpoint_id, d.event_id, ev.type AS event_type, d.sequence::text AS sequence, d.manual, d.status, d.attempts, d.next_attempt_at,
  d.first_attempt_at, d.last_attempt_at, d.last_status_code, d.last_error, d.created_at, d.completed_at`;
const EVENT_COLUMNS = 'ev.id, ev.account_id, ev.type, ev.data, ev.sequence::text AS sequence, ev.created_at';
const at = (param: number) => `(timestamptz 'epoch' + $${param}::bigint * interval '1 microsecond')`;

/** Keyset conditions (created_at, id) < cursor, newest first. */
function pageTail(alias: string, page: Page, params: unknown[], where: string[]): string {
  if (page.before !== undefined) {
    params.push(page.before.createdAtMicros.toString(), page.before.id);
    where.push(`(${alias}.created_at, ${alias}.id) < (${at(params.length - 1)}, $${params.length}::uuid)`);
  }
  params.push(page.limit);
  return `ORDER BY ${alias}.created_at DESC, ${alias}.id DESC LIMIT $${params.length}`;
}

/** The event a disabled endpoint's owner is told about; written in the transaction that disables it. */
async function emitDisabled(q: Queryable, e: EndpointRow): Promise<void> {
  await q.query(
    `INSERT INTO webhook_events (account_id, type, data) VALUES ($1, 'webhook_endpoint.disabled',
       jsonb_build_object('endpoint_id', $2::uuid, 'url', $3::text, 'reason', $4::text, 'failing_since', $5::timestamptz, 'disabled_at', $6::timestamptz))`,
    [e.account_id, e.id, e.url, e.disabled_reason, e.failing_since, e.disabled_at],
  );
}

export function pgWebhookStore(db: Database): WebhookStore {
  return {
    async createEndpoint(e, max) {
      return db.tx(async (q) => {
        // The account row serialises concurrent registrations, so the limit holds.
        await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [e.accountId]);
        const n = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = $1 AND status <> 'deleted'`, [e.accountId]);
        if ((n.rows[0]?.n ?? 0) >= max) return 'limit' as const;
        const r = await q.query<EndpointRow>(
          `INSERT INTO webhook_endpoints (id, account_id, url, description, event_types, secret, status) VALUES ($1, $2, $3, $4, $5::text[], $6, 'enabled') RETURNING *`,
          [e.id, e.accountId, e.url, e.description, e.eventTypes, e.secret],
        );
        return endpointOf(r.rows[0] as EndpointRow);
      });
    },

    async listEndpoints(accountId) {
      const r = await db.query<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE account_id = $1 AND status <> 'deleted' ORDER BY created_at DESC, id DESC`, [accountId]);
      return r.rows.map(endpointOf);
    },

    async getEndpoint(accountId, id) {
      const r = await db.query<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE id = $1 AND account_id = $2 AND status <> 'deleted'`, [id, accountId]);
      return r.rows[0] === undefined ? null : endpointOf(r.rows[0]);
    },

    async deleteEndpoint(accountId, id) {
      return db.tx(async (q) => {
        const r = await q.query(`UPDATE webhook_endpoints SET status = 'deleted', updated_at = now() WHERE id = $1 AND account_id = $2 AND status <> 'deleted' RETURNING id`, [id, accountId]);
        if (r.rowCount === 0) return false;
        await q.query(`UPDATE webhook_deliveries SET status = 'canceled', completed_at = now(), lease_owner = NULL, lease_expires_at = NULL WHERE endpoint_id = $1 AND status = 'pending'`, [id]);
        return true;
      });
    },

    async enableEndpoint(accountId, id) {
      const r = await db.query<EndpointRow>(
        `UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL, disabled_at = NULL, failing_since = NULL, updated_at = now()
          WHERE id = $1 AND account_id = $2 AND status <> 'deleted' RETURNING *`,
        [id, accountId],
      );
      return r.rows[0] === undefined ? null : endpointOf(r.rows[0]);
    },

    async listDeliveries(endpointId, page, status) {
      const params: unknown[] = [endpointId];
      const where = ['d.endpoint_id = $1'];
      if (status !== undefined) {
        params.push(status);
        where.push(`d.status = $${params.length}`);
      }
      const tail = pageTail('d', page, params, where);
      const r = await db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id WHERE ${where.join(' AND ')} ${tail}`, params);
      return r.rows.map(deliveryOf);
    },

    async attemptsOf(ids) {
      const out = new Map<string, AttemptRecord[]>();
      if (ids.length === 0) return out;
      const r = await db.query<{ delivery_id: string; attempt: number; started_at: Date; duration_ms: number; status_code: number | null; error: string | null; response_excerpt: string | null }>(
        'SELECT delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, id',
        [ids],
      );
      for (const a of r.rows) {
        const list = out.get(a.delivery_id) ?? [];
        list.push({ attempt: a.attempt, startedAt: a.started_at, durationMs: a.duration_ms, statusCode: a.status_code, error: a.error, responseExcerpt: a.response_excerpt });
        out.set(a.delivery_id, list);
      }
      return out;
    },

    async getDelivery(accountId, id) {
      const r = await db.query<DeliveryRow & { endpoint_status: EndpointStatus }>(
        `SELECT ${DELIVERY_COLUMNS}, e.status AS endpoint_status FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events ev ON ev.id = d.event_id
          WHERE d.id = $1 AND e.account_id = $2 AND e.status <> 'deleted'`,
        [id, accountId],
      );
      const row = r.rows[0];
      return row === undefined ? null : { ...deliveryOf(row), endpointStatus: row.endpoint_status };
    },

    async redeliver(accountId, id) {
      const r = await db.query<DeliveryRow>(
        `WITH src AS (SELECT d.endpoint_id, d.event_id, d.sequence FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1 AND e.account_id = $2),
              ins AS (INSERT INTO webhook_deliveries (endpoint_id, event_id, sequence, manual, status) SELECT endpoint_id, event_id, sequence, true, 'pending' FROM src RETURNING *)
         SELECT ${DELIVERY_COLUMNS} FROM ins d JOIN webhook_events ev ON ev.id = d.event_id`,
        [id, accountId],
      );
      return r.rows[0] === undefined ? null : deliveryOf(r.rows[0]);
    },

    async listEvents(accountId, page, type) {
      const params: unknown[] = [accountId];
      const where = ['ev.account_id = $1'];
      if (type !== undefined) {
        params.push(type);
        where.push(`ev.type = $${params.length}`);
      }
      const tail = pageTail('ev', page, params, where);
      const r = await db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM webhook_events ev WHERE ${where.join(' AND ')} ${tail}`, params);
      return r.rows.map(eventOf);
    },

    async getEvent(accountId, id) {
      const r = await db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM webhook_events ev WHERE ev.id = $1 AND ev.account_id = $2`, [id, accountId]);
      return r.rows[0] === undefined ? null : eventOf(r.rows[0]);
    },

    async dispatch(limit) {
      const r = await db.tx((q) => q.query<{ n: number }>('SELECT webhook_dispatch($1) AS n', [limit]));
      return r.rows[0]?.n ?? 0;
    },

    async claim(owner, leaseMs, limit) {
      return db.tx(async (q) => {
        // Per endpoint only the head (the lowest pending sequence) is eligible, leased or not: a
        // leased head keeps the rest waiting, so one endpoint never has two ordered deliveries in flight.
        const claimed = await q.query<DeliveryRow>(
          `WITH due AS (
             SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
              WHERE d.status = 'pending' AND d.next_attempt_at <= clock_timestamp() AND e.status = 'enabled'
                AND (d.lease_expires_at IS NULL OR d.lease_expires_at < clock_timestamp())
                AND (d.manual OR NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                      WHERE p.endpoint_id = d.endpoint_id AND p.status = 'pending' AND NOT p.manual AND p.sequence < d.sequence))
              ORDER BY d.next_attempt_at LIMIT $3 FOR UPDATE OF d SKIP LOCKED)
           UPDATE webhook_deliveries d SET lease_owner = $1, lease_expires_at = clock_timestamp() + $2::integer * interval '1 millisecond',
                  attempts = d.attempts + 1, first_attempt_at = COALESCE(d.first_attempt_at, clock_timestamp())
             FROM due, webhook_events ev WHERE d.id = due.id AND ev.id = d.event_id
           RETURNING ${DELIVERY_COLUMNS}`,
          [owner, leaseMs, limit],
        );
        if (claimed.rows.length === 0) return [];
        const ids = claimed.rows.map((d) => d.id);
        const rest = await q.query<
          EndpointRow & { delivery_id: string; ev_id: string; ev_account_id: string; ev_type: string; ev_data: Record<string, unknown>; ev_sequence: string | null; ev_created_at: Date }
        >(
          `SELECT e.*, d.id AS delivery_id, ev.id AS ev_id, ev.account_id AS ev_account_id, ev.type AS ev_type, ev.data AS ev_data, ev.sequence::text AS ev_sequence, ev.created_at AS ev_created_at
             FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events ev ON ev.id = d.event_id WHERE d.id = ANY($1::uuid[])`,
          [ids],
        );
        const byId = new Map(rest.rows.map((r) => [r.delivery_id, r]));
        return claimed.rows.flatMap((d) => {
          const r = byId.get(d.id);
          if (r === undefined) return [];
          const event = eventOf({ id: r.ev_id, account_id: r.ev_account_id, type: r.ev_type, data: r.ev_data, sequence: r.ev_sequence, created_at: r.ev_created_at });
          return [{ delivery: deliveryOf(d), endpoint: endpointOf(r), event }];
        });
      });
    },

    async recordAttempt(rep) {
      return db.tx(async (q) => {
        const d = await q.query<{ endpoint_id: string; attempts: number; first_attempt_at: Date }>(
          `SELECT endpoint_id, attempts, first_attempt_at FROM webhook_deliveries WHERE id = $1 AND lease_owner = $2 AND status = 'pending' FOR UPDATE`,
          [rep.deliveryId, rep.owner],
        );
        const row = d.rows[0];
        // The lease was lost (expired and taken over, or the endpoint deleted): the new owner decides.
        if (row === undefined) return { endpointDisabled: false };
        const { result, outcome } = rep;
        await q.query(`INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
          rep.deliveryId,
          row.attempts,
          rep.startedAt,
          rep.durationMs,
          result.statusCode,
          result.error,
          result.excerpt,
        ]);
        const status = outcome.kind === 'retry' ? 'pending' : outcome.kind;
        await q.query(
          `UPDATE webhook_deliveries SET status = $2, last_attempt_at = $3, last_status_code = $4, last_error = $5, lease_owner = NULL, lease_expires_at = NULL,
                  next_attempt_at = COALESCE($6, next_attempt_at), completed_at = CASE WHEN $2 = 'pending' THEN NULL ELSE clock_timestamp() END
            WHERE id = $1`,
          [rep.deliveryId, status, rep.startedAt, result.statusCode, result.error, outcome.kind === 'retry' ? outcome.at : null],
        );
        if (outcome.kind === 'succeeded') {
          await q.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [row.endpoint_id]);
          return { endpointDisabled: false };
        }
        const cur = await q.query<{ status: EndpointStatus; failing_since: Date | null }>('SELECT status, failing_since FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [row.endpoint_id]);
        const ep = cur.rows[0];
        if (ep === undefined) return { endpointDisabled: false };
        // Failing since this delivery's first attempt at the latest: a delivery given up after the retry
        // window then finds the endpoint failing for at least as long.
        const failingSince = ep.failing_since ?? row.first_attempt_at;
        const disable = ep.status === 'enabled' && failingSince.getTime() <= rep.disableIfFailingSince.getTime();
        const updated = await q.query<EndpointRow>(
          `UPDATE webhook_endpoints SET failing_since = $2, updated_at = now(),
                  status = CASE WHEN $3 THEN 'disabled' ELSE status END,
                  disabled_reason = CASE WHEN $3 THEN 'sustained_failure' ELSE disabled_reason END,
                  disabled_at = CASE WHEN $3 THEN clock_timestamp() ELSE disabled_at END
            WHERE id = $1 RETURNING *`,
          [row.endpoint_id, failingSince, disable],
        );
        if (!disable || updated.rows[0] === undefined) return { endpointDisabled: false };
        await emitDisabled(q, updated.rows[0]);
        return { endpointDisabled: true };
      });
    },
  };
}
