import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onSendAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import { idempotencyHash, type Idempotency } from '../../idempotency/idempotency.js';
import { canonicalJson } from '../../kernel/canonical-json.js';
import type { App, IdempotentRoute } from '../app-types.js';

/**
 * Idempotency-Key on platform POSTs (docs/decisions/foundation-idempotency-keys.md), on the one
 * mechanism (scope 'header'; docs/decisions/foundation-idempotency-one-mechanism.md). A route opts
 * in with `config.idempotent`: 'account' (keys scoped to the session's account) or 'operator'.
 * The key is reserved before the handler runs and the response stored after it (onSend); the
 * handler's own effects are made idempotent per run with `req.idempotency.runToken`. A route whose
 * body carries its own key (Account Jobs' idempotency_key, execution's client_token, kept by its
 * domain in the same mechanism) says so with `config.idempotencyField`; every POST is listed in
 * `app.idempotentRoutes` with what keeps it idempotent.
 */

/** A request holding a reservation longer than this may be taken over by a retry of itself. */
export const IDEMPOTENCY_LEASE_SECONDS = 300;

export const IdempotencyKeyHeader = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7E]+$',
  description:
    'Optional. 1–255 printable ASCII characters, unique per operation. A retry with the same key and body replays the first response ' +
    '(header Idempotent-Replayed: true) instead of acting twice; another body → 409 IDEMPOTENCY_KEY_REUSED; while the first is still running → ' +
    '409 IDEMPOTENCY_KEY_IN_FLIGHT. Keys are scoped to the account and kept 24 h.',
});

// Headers a replay repeats; the rest (request id, rate-limit counters) belong to the new request.
const REPLAYED_HEADERS = ['content-type', 'cache-control', 'pragma', 'location', 'retry-after', 'allow'];

function requestHash(req: FastifyRequest): string {
  // Field order does not make another request. Bodies are at most 64 levels deep (json-body.ts
  // refuses deeper ones before parsing), so the recursive canonical form is safe here.
  return idempotencyHash(`${req.method}\n${req.routeOptions.url ?? ''}\n${canonicalJson(req.params ?? {})}\n${canonicalJson(req.body ?? null)}`);
}

// The stored response may carry a secret (a new credential's): it is encrypted under a key only
// the client holds, so the table alone cannot replay it.
function responseKey(rawKey: string, owner: string): Buffer {
  return Buffer.from(hkdfSync('sha256', rawKey, owner, 'qrail idempotent response', 32));
}

function seal(secret: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', secret, iv);
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
}

function open(secret: Buffer, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const d = createDecipheriv('aes-256-gcm', secret, raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
}

function asArray<T>(h: T | T[] | undefined): T[] {
  return h === undefined ? [] : Array.isArray(h) ? h : [h];
}

export function registerIdempotency(app: App, idempotency: Idempotency): void {
  app.decorateRequest('idempotency', undefined);
  const routes = new Map<string, IdempotentRoute>();
  app.decorate('idempotentRoutes', routes);
  let lastPurge = 0;

  const preHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const raw = req.headers['idempotency-key'];
    if (raw === undefined) return;
    if (typeof raw !== 'string')
      throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'Send one Idempotency-Key header.', [{ in: 'headers', path: '/idempotency-key', code: 'DUPLICATE', message: 'must be sent once' }]);
    const scope = req.routeOptions.config.idempotent;
    const owner = scope === 'operator' ? 'operator' : req.principal?.accountId;
    // Routes reach here authenticated; without an owner there is nothing to scope the key to.
    if (owner === undefined) return;
    if (Date.now() - lastPurge > 60_000) {
      lastPurge = Date.now();
      await idempotency.purge().catch((err: unknown) => req.log.warn({ err }, 'idempotency purge failed'));
    }
    const keyHash = idempotencyHash(raw);
    const secret = responseKey(raw, owner);
    const out = await idempotency.reserve({
      scope: 'header',
      owner,
      keyHash,
      requestHash: requestHash(req),
      route: `${req.method} ${req.routeOptions.url ?? ''}`,
      leaseSeconds: IDEMPOTENCY_LEASE_SECONDS,
    });
    switch (out.kind) {
      case 'new':
        if (out.runToken === null) throw new Error('a reservation without a run token');
        req.idempotency = { runToken: out.runToken, owner, keyHash, secret };
        return;
      case 'in_flight':
        throw fail(
          HTTP_ERRORS.IDEMPOTENCY_KEY_IN_FLIGHT,
          'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds to get its response.',
          { idempotency_key: raw },
          { 'retry-after': '1' },
        );
      case 'reused':
        throw fail(HTTP_ERRORS.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was already used with another request (route or body); use a new key for a new request.', {
          idempotency_key: raw,
          original_route: out.route,
        });
      case 'replay': {
        if (out.response === null || out.statusCode === null) throw new Error('a replay without a stored response');
        const stored = JSON.parse(open(secret, out.response)) as { h: Record<string, string>; b: string };
        for (const [k, v] of Object.entries(stored.h)) reply.header(k, v);
        return reply.code(out.statusCode).header('idempotent-replayed', 'true').send(stored.b);
      }
    }
  };

  const onSend: onSendAsyncHookHandler = async (req, reply, payload) => {
    const st = req.idempotency;
    if (st === undefined) return payload;
    req.idempotency = undefined;
    try {
      if (reply.statusCode >= 500 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
        await idempotency.finish({ scope: 'header', owner: st.owner, keyHash: st.keyHash, runToken: st.runToken }, null);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const h of REPLAYED_HEADERS) {
        const v = reply.getHeader(h);
        if (v !== undefined) headers[h] = String(v);
      }
      const body = typeof payload === 'string' ? payload : payload.toString('utf8');
      await idempotency.finish(
        { scope: 'header', owner: st.owner, keyHash: st.keyHash, runToken: st.runToken },
        { statusCode: reply.statusCode, response: seal(st.secret, JSON.stringify({ h: headers, b: body })) },
      );
    } catch (err) {
      // The effect happened: the client still gets its answer. The key stays in progress until its
      // lease lapses; a retry then runs again under the same run token (see the decision).
      req.log.warn({ err }, 'idempotent response not stored');
    }
    return payload;
  };

  app.addHook('onRoute', (route) => {
    const field = route.config?.idempotencyField;
    if (field !== undefined) {
      // The field is the domain's key: a body that may omit it would make the route non-idempotent.
      const body = (route.schema as { body?: { required?: unknown } } | undefined)?.body;
      if (!Array.isArray(body?.required) || !body.required.includes(field)) throw new Error(`${route.url}: config.idempotencyField '${field}' is not a required body field`);
    }
    if (asArray(route.method).includes('POST')) {
      routes.set(`POST ${route.url}`, { header: route.config?.idempotent ?? null, field: field ?? null });
    }
    if (route.config?.idempotent === undefined) return;
    // The Idempotent-Replayed response header is documented with the others (src/http/openapi).
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const headers = (schema['headers'] ?? Type.Object({})) as { properties?: Record<string, unknown> };
    route.schema = { ...schema, headers: { ...headers, type: 'object', properties: { ...headers.properties, 'idempotency-key': IdempotencyKeyHeader } } };
    route.preHandler = [...asArray(route.preHandler), preHandler];
    route.onSend = [...asArray(route.onSend), onSend];
  });
}
