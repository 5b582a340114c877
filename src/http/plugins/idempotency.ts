import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onSendAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import { canonicalJson } from '../../kernel/canonical-json.js';
import { idempotencyRepository, type IdempotencyRepository } from '../../store/repositories/idempotency-repository.js';
import type { App } from '../app-types.js';

/**
 * Idempotency-Key on platform POSTs (docs/decisions/foundation-idempotency-keys.md). A route opts
 * in with `config.idempotent`: 'account' (keys scoped to the session's account) or 'operator'.
 * The key is reserved before the handler runs and the response stored after it (onSend); the
 * handler's own effects are made idempotent per run with `req.idempotency.runToken`.
 */

/** A request holding a reservation longer than this may be taken over by a retry of itself. */
export const IDEMPOTENCY_LEASE_SECONDS = 300;

export const IdempotencyKeyHeader = Type.String({
  minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$',
  description: 'Optional. 1–255 printable ASCII characters, unique per operation. A retry with the same key and body replays the first response '
    + '(header Idempotent-Replayed: true) instead of acting twice; another body → 409 IDEMPOTENCY_KEY_REUSED; while the first is still running → '
    + '409 IDEMPOTENCY_KEY_IN_FLIGHT. Keys are scoped to the account and kept 24 h.',
});

// Headers a replay repeats; the rest (request id, rate-limit counters) belong to the new request.
const REPLAYED_HEADERS = ['content-type', 'cache-control', 'pragma', 'location', 'retry-after', 'allow'];

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function requestHash(req: FastifyRequest): string {
  // Field order does not make another request. Bodies are at most 64 levels deep (json-body.ts
  // refuses deeper ones before parsing), so the recursive canonical form is safe here.
  return sha256(`${req.method}\n${req.routeOptions.url ?? ''}\n${canonicalJson(req.params ?? {})}\n${canonicalJson(req.body ?? null)}`);
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

export function registerIdempotency(app: App, repo: IdempotencyRepository = idempotencyRepository(app.db)): void {
  app.decorateRequest('idempotency', undefined);
  let lastPurge = 0;

  const preHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const raw = req.headers['idempotency-key'];
    if (raw === undefined) return;
    if (typeof raw !== 'string') throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'Send one Idempotency-Key header.', [{ in: 'headers', path: '/idempotency-key', code: 'DUPLICATE', message: 'must be sent once' }]);
    const scope = req.routeOptions.config.idempotent;
    const owner = scope === 'operator' ? 'operator' : req.principal?.accountId;
    // Routes reach here authenticated; without an owner there is nothing to scope the key to.
    if (owner === undefined) return;
    if (Date.now() - lastPurge > 60_000) {
      lastPurge = Date.now();
      await repo.purge().catch((err: unknown) => req.log.warn({ err }, 'idempotency purge failed'));
    }
    const keyHash = sha256(raw);
    const secret = responseKey(raw, owner);
    const out = await repo.begin({ owner, keyHash, requestHash: requestHash(req), route: `${req.method} ${req.routeOptions.url ?? ''}`, leaseSeconds: IDEMPOTENCY_LEASE_SECONDS });
    switch (out.kind) {
      case 'reserved':
        req.idempotency = { runToken: out.runToken, owner, keyHash, secret };
        return;
      case 'in_flight':
        throw fail(HTTP_ERRORS.IDEMPOTENCY_KEY_IN_FLIGHT, 'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds to get its response.', { idempotency_key: raw }, { 'retry-after': '1' });
      case 'reused':
        throw fail(HTTP_ERRORS.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was already used with another request (route or body); use a new key for a new request.', { idempotency_key: raw, original_route: out.route });
      case 'replay': {
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
        await repo.fail(st.owner, st.keyHash, st.runToken);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const h of REPLAYED_HEADERS) {
        const v = reply.getHeader(h);
        if (v !== undefined) headers[h] = String(v);
      }
      const body = typeof payload === 'string' ? payload : payload.toString('utf8');
      await repo.complete(st.owner, st.keyHash, st.runToken, reply.statusCode, seal(st.secret, JSON.stringify({ h: headers, b: body })));
    } catch (err) {
      // The effect happened: the client still gets its answer. The key stays in progress until its
      // lease lapses; a retry then runs again under the same run token (see the decision).
      req.log.warn({ err }, 'idempotent response not stored');
    }
    return payload;
  };

  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent === undefined) return;
    // The Idempotent-Replayed response header is documented with the others (src/http/openapi).
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const headers = (schema['headers'] ?? Type.Object({})) as { properties?: Record<string, unknown> };
    route.schema = { ...schema, headers: { ...headers, type: 'object', properties: { ...headers.properties, 'idempotency-key': IdempotencyKeyHeader } } };
    route.preHandler = [...asArray(route.preHandler), preHandler];
    route.onSend = [...asArray(route.onSend), onSend];
  });
}
