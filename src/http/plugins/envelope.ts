import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, fail, isAppError } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import { StoreConflictError, StoreUnavailableError } from '../../store/db.js';
import { SERVICE_VERSION } from '../../version.js';
import type { App, Surface } from '../app-types.js';
import { validationDetails } from './validation.js';
import { oauthRefusal } from '../oauth-error.js';

const ENVELOPED = Symbol('qrail.enveloped');

export function meta(req: FastifyRequest) {
  const elapsedNs = process.hrtime.bigint() - req.startedAt;
  return {
    version: SERVICE_VERSION,
    request_id: req.id,
    processing_time_ms: Math.round(Number(elapsedNs) / 10_000) / 100,
  };
}

export function surfaceOf(req: FastifyRequest): Surface {
  // No route matched (404, 405, router errors): the neighbouring routes' interface decides.
  if (req.is404) return req.server.surfaceForUrl?.(req.url) ?? 'platform';
  return req.routeOptions.config?.surface ?? 'platform';
}

const isEnveloped = (s: Surface) => s === 'platform' || s === 'page';

/** Maps anything thrown to an AppError without leaking internals. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (err instanceof StoreUnavailableError) {
    return fail(HTTP_ERRORS.STORE_UNAVAILABLE, 'The database is unavailable; retry shortly.', undefined, { 'retry-after': '2' });
  }
  if (err instanceof StoreConflictError) {
    return fail(HTTP_ERRORS.TRANSACTION_CONFLICT, 'A concurrent change collided with this request; nothing was applied. Retry it.', undefined, { 'retry-after': '1' });
  }
  const fe = err as Partial<FastifyError> & { validation?: unknown; validationContext?: string };
  if (fe.validation !== undefined && Array.isArray(fe.validation)) {
    const part = fe.validationContext ?? 'body';
    return fail(HTTP_ERRORS.VALIDATION_FAILED, `Request ${part} failed validation.`, validationDetails(fe.validation, part));
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return fail(HTTP_ERRORS.MALFORMED_JSON, 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return fail(HTTP_ERRORS.MALFORMED_JSON, 'The request body is empty but Content-Type is application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fail(HTTP_ERRORS.PAYLOAD_TOO_LARGE, 'The request body is larger than this deployment accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return fail(HTTP_ERRORS.UNSUPPORTED_MEDIA_TYPE, 'Unsupported Content-Type; send application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return fail(HTTP_ERRORS.BAD_REQUEST, 'The body size does not match Content-Length.');
    default:
      break;
  }
  // Fastify's JSON parser raises a SyntaxError with status 400 for broken JSON.
  if (err instanceof SyntaxError && fe.statusCode === 400) {
    return fail(HTTP_ERRORS.MALFORMED_JSON, 'The request body is not valid JSON.');
  }
  return fail(HTTP_ERRORS.INTERNAL_ERROR, 'An unexpected error occurred.');
}

export function errorBody(req: FastifyRequest, e: AppError): Record<string, unknown> {
  const error: Record<string, unknown> = { code: e.code, message: e.message };
  if (e.details !== undefined) error['details'] = e.details;
  const body = isEnveloped(surfaceOf(req)) ? { status: 'error', error, meta: meta(req) } : { error, request_id: req.id };
  Object.defineProperty(body, ENVELOPED, { value: true });
  return body;
}

export function sendError(req: FastifyRequest, reply: FastifyReply, e: AppError): FastifyReply {
  req.errorCode = e.code;
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  if (!req.is404 && req.routeOptions.config?.oauthErrors === true) {
    const o = oauthRefusal(e);
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    if (o.status === 401) reply.header('www-authenticate', 'Basic realm="qrail-jobs"');
    return reply.code(o.status).type('application/json; charset=utf-8').send(o.body);
  }
  // RFC 9110 §15.5.2: every 401 names its scheme, whichever code path raised it.
  if (e.statusCode === 401 && !reply.hasHeader('www-authenticate')) {
    reply.header('www-authenticate', surfaceOf(req) === 'jobs' ? 'Bearer realm="qrail-jobs"' : 'Bearer realm="qrail"');
  }
  return reply.code(e.statusCode).type('application/json; charset=utf-8').send(errorBody(req, e));
}

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any route, hook or
 * error handler runs (a URL with broken percent-encoding, a path parameter over the
 * router's length limit). Without it Fastify answers them with its own non-envelope JSON.
 */
export function handleFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  // No onRequest hook ran for this request: start its clock and echo its id here.
  req.startedAt = process.hrtime.bigint();
  reply.header('x-request-id', req.id);
  const e =
    err.code === 'FST_ERR_BAD_URL'
      ? fail(HTTP_ERRORS.BAD_REQUEST, 'The URL is not valid (broken percent-encoding).')
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? fail(HTTP_ERRORS.BAD_REQUEST, 'A path parameter in the URL is too long.')
        : toAppError(err);
  // Fastify ignores this hook's result; the reply is thenable only for awaiting its send.
  void sendError(req, reply, e);
}

export function registerEnvelope(app: App): void {
  // Callback-style hooks: these run on every request, and an async hook costs a promise each.
  app.addHook('onRequest', (req, reply, done) => {
    req.startedAt = process.hrtime.bigint();
    reply.header('x-request-id', req.id);
    // Draining (SIGTERM): new requests get 503 at once; operational routes keep answering.
    if (app.draining && surfaceOf(req) !== 'raw') {
      reply.header('connection', 'close');
      return done(fail(HTTP_ERRORS.SERVICE_DRAINING, 'This instance is shutting down; retry the request.', undefined, { 'retry-after': '1' }));
    }
    done();
  });

  app.addHook('preSerialization', (req, reply, payload: unknown, done) => {
    if (surfaceOf(req) !== 'platform' || reply.statusCode >= 400) return done(null, payload);
    if (payload !== null && typeof payload === 'object' && (payload as Record<symbol, unknown>)[ENVELOPED] === true) return done(null, payload);
    done(null, { status: 'ok', data: payload ?? {}, meta: meta(req) });
  });

  app.setErrorHandler(async (err, req, reply) => {
    const e = toAppError(err);
    if (e.statusCode >= 500 && e.code === HTTP_ERRORS.INTERNAL_ERROR.code) {
      req.log.error({ err }, 'unhandled error');
    } else if (e.statusCode >= 500) {
      req.log.warn({ err, code: e.code }, 'service unavailable');
    }
    return sendError(req, reply, e);
  });
}
