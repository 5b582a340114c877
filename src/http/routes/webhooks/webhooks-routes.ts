/**
 * Outbound webhooks (issue 21 item 5, docs/webhooks.md): an account's endpoints, their delivery
 * log, redelivery and the account's events. Platform envelope; the account owner's session.
 */
import { Type } from 'typebox';
import { fail } from '../../../errors/app-error.js';
import { duplicateItemDetails } from '../../../errors/duplicate-items.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import { decodeCursor, keysetPage, pageSize } from '../../../kernel/list-cursor.js';
import type { DeliveryStatus } from '../../../webhooks/ports.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { personOf } from '../../plugins/auth.js';
import { CreateEndpointBody, DeliveryParams, DeliveryQuery, DeliveryView, EndpointParams, EndpointView, EventQuery, EventView, deliveryView, endpointView, eventView, page } from './schemas.js';

const tags = ['webhooks'];
const position = (x: { createdAt: Date; id: string }) => ({ createdAtMicros: BigInt(x.createdAt.getTime()) * 1000n, id: x.id });

export default async function webhooksRoutes(app: App): Promise<void> {
  const svc = () => app.services.webhooks;
  // onRequest, so that a missing session is a 401 before the body is validated.
  const auth = { onRequest: app.requireSession };

  app.post(
    '/v1/webhooks/endpoints',
    {
      ...auth,
      config: { idempotent: 'account' },
      schema: {
        tags,
        operationId: 'createWebhookEndpoint',
        summary: 'Register a webhook endpoint; the signing secret is returned once at data.secret',
        body: CreateEndpointBody,
        response: {
          201: okResponse(
            Obj({ ...EndpointView.properties, secret: Type.String({ pattern: '^whsec_', description: 'Signs every delivery (Qrail-Signature). Shown once.' }) }),
            'The new endpoint with its signing secret (shown once)',
          ),
          ...errors(409),
        },
      },
    },
    async (req, reply) => {
      const repeated = duplicateItemDetails(req.body.event_types, '/event_types');
      if (repeated.length > 0) throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'An event type is listed more than once.', repeated);
      const { endpoint, secret } = await svc().create(personOf(req.principal).accountId, { url: req.body.url, eventTypes: req.body.event_types, description: req.body.description });
      reply.code(201).header('cache-control', 'no-store');
      return { ...endpointView(endpoint), secret };
    },
  );

  app.get(
    '/v1/webhooks/endpoints',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listWebhookEndpoints',
        summary: 'The account’s webhook endpoints (at most 16), newest first',
        response: { 200: okResponse(page('endpoints', EndpointView), 'Every endpoint') },
      },
    },
    async (req) => ({ endpoints: (await svc().list(personOf(req.principal).accountId)).map(endpointView), next_cursor: null, has_more: false }),
  );

  app.get(
    '/v1/webhooks/endpoints/:endpoint_id',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'getWebhookEndpoint',
        summary: 'One webhook endpoint',
        params: EndpointParams,
        response: { 200: okResponse(EndpointView, 'The endpoint'), ...errors(404) },
      },
    },
    async (req) => endpointView(await svc().get(personOf(req.principal).accountId, req.params.endpoint_id.toLowerCase())),
  );

  app.delete(
    '/v1/webhooks/endpoints/:endpoint_id',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint: nothing more is sent to it, its pending deliveries are canceled',
        params: EndpointParams,
        response: { 200: okResponse(Obj({ endpoint_id: Type.String({ format: 'uuid' }), deleted: Type.Literal(true) }), 'Deleted'), ...errors(404) },
      },
    },
    async (req) => {
      const id = req.params.endpoint_id.toLowerCase();
      await svc().delete(personOf(req.principal).accountId, id);
      return { endpoint_id: id, deleted: true as const };
    },
  );

  app.post(
    '/v1/webhooks/endpoints/:endpoint_id/enable',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'enableWebhookEndpoint',
        summary: 'Enable a disabled endpoint again; its pending deliveries resume in sequence order',
        params: EndpointParams,
        response: { 200: okResponse(EndpointView, 'The endpoint, enabled'), ...errors(404) },
      },
    },
    async (req) => endpointView(await svc().enable(personOf(req.principal).accountId, req.params.endpoint_id.toLowerCase())),
  );

  app.get(
    '/v1/webhooks/endpoints/:endpoint_id/deliveries',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'The endpoint’s delivery log, newest first: each delivery with its attempts and their response codes',
        params: EndpointParams,
        querystring: DeliveryQuery,
        response: { 200: okResponse(page('deliveries', DeliveryView), 'A page of deliveries'), ...errors(404) },
      },
    },
    async (req) => {
      const q = req.query as { status?: DeliveryStatus; limit?: number; cursor?: string };
      const before = decodeCursor(q.cursor);
      const accountId = personOf(req.principal).accountId;
      const p = await keysetPage(
        pageSize(q.limit),
        (limit) => svc().deliveries(accountId, req.params.endpoint_id.toLowerCase(), { limit, before }, q.status),
        (x) => position({ createdAt: x.delivery.createdAt, id: x.delivery.id }),
      );
      return { deliveries: p.items.map((x) => deliveryView(x.delivery, x.attempts)), next_cursor: p.nextCursor, has_more: p.hasMore };
    },
  );

  app.post(
    '/v1/webhooks/deliveries/:delivery_id/redeliver',
    {
      ...auth,
      config: { idempotent: 'account' },
      schema: {
        tags,
        operationId: 'redeliverWebhook',
        summary: 'Send a delivery’s event again, as a new delivery beside the ordered stream',
        params: DeliveryParams,
        response: { 202: okResponse(DeliveryView, 'The new delivery, pending'), ...errors(404, 409) },
      },
    },
    async (req, reply) => {
      const d = await svc().redeliver(personOf(req.principal).accountId, req.params.delivery_id.toLowerCase());
      // No single-delivery read: the endpoint's delivery log, where the new one shows its attempts.
      reply.code(202).header('location', `/v1/webhooks/endpoints/${d.endpointId}/deliveries`);
      return deliveryView(d, []);
    },
  );

  app.get(
    '/v1/webhooks/events',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listWebhookEvents',
        summary: 'The account’s events (written while it has an enabled endpoint), newest first',
        querystring: EventQuery,
        response: { 200: okResponse(page('events', EventView), 'A page of events') },
      },
    },
    async (req) => {
      const q = req.query as { type?: string; limit?: number; cursor?: string };
      const before = decodeCursor(q.cursor);
      const accountId = personOf(req.principal).accountId;
      const p = await keysetPage(pageSize(q.limit), (limit) => svc().events(accountId, { limit, before }, q.type), position);
      return { events: p.items.map(eventView), next_cursor: p.nextCursor, has_more: p.hasMore };
    },
  );
}
