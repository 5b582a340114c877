import type { RouteOptions } from 'fastify';
import type { Surface } from '../app-types.js';
import { errorCodes, errorSchemaId, type ErrorInterface } from './error-schemas.js';
import { OPERATION_EXAMPLES } from './examples.js';
import { defaultAccess, routeAccess, securityOf } from '../route-access.js';

/**
 * The two passes that make the OpenAPI document exact beyond what each route declares:
 * `annotateRoute` (per route, while @fastify/swagger reads it) records what the edge plugins do
 * to the route, and `finishDocument` (once, on the whole document) turns that into the error
 * responses, response headers, security and examples every operation really has.
 */

type Json = Record<string, unknown>;

/** What the edge does to a route, as far as its answers are concerned. */
interface RouteFacts {
  readonly surface: Surface;
  readonly rateLimited: boolean;
  readonly idempotent: boolean;
  /** A body parser for any content type (no 415). */
  readonly anyContentType: boolean;
  /** Every refusal is an RFC 6749 §5.2 body, a refused body 400 (no 413 or 415). */
  readonly oauthErrors: boolean;
}

const FACTS = 'x-qrail-route';
/** Marks a request field that is a circuit: validated by the circuit parser, documented as one of the input forms. */
export const CIRCUIT_INPUT = 'x-qrail-circuit';
/**
 * Marks the circuit of `POST /v1/circuits/validate`, the one endpoint that exists to receive broken
 * circuits: documented as the three forms or any object of few members, so that a validating proxy
 * or a typed client lets a broken circuit through to the handler, which reports every problem.
 */
export const CIRCUIT_ANY_INPUT = 'x-qrail-circuit-any';
/** The most members a circuit object has in any form (0.2 has 11), with room for mistakes. */
export const CIRCUIT_MAX_MEMBERS = 64;
/** A request body the handler reads itself (raw bytes, forms): documented as given here. */
export const REQUEST_BODY = 'x-qrail-request-body';

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/** @fastify/swagger's `transform`: the route's schema plus the facts `finishDocument` needs. */
export function annotateRoute({ schema, url, route }: { schema: unknown; url: string; route: RouteOptions }): { schema: Json; url: string } {
  const config = (route.config ?? {}) as { surface?: Surface; rateLimit?: unknown; idempotent?: unknown; anyContentType?: boolean; oauthErrors?: boolean; bearer?: 'required' | 'optional' };
  const facts: RouteFacts = {
    surface: config.surface ?? 'platform',
    rateLimited: config.rateLimit !== false,
    idempotent: config.idempotent !== undefined,
    anyContentType: config.anyContentType === true,
    oauthErrors: config.oauthErrors === true,
  };
  // The security of a platform route is its declared access (src/http/route-access.ts), never a second declaration.
  const method = Array.isArray(route.method) ? route.method[0] : route.method;
  const declared = typeof method === 'string' ? routeAccess(method, route.url) : undefined;
  const access = declared ?? (config.bearer === undefined ? undefined : defaultAccess(config.bearer === 'optional'));
  const security = access === undefined ? {} : { security: securityOf(access) };
  return { schema: { ...(schema as Json | undefined), ...security, [FACTS]: facts }, url };
}

const ERROR_TEXT: Record<number, string> = {
  400: 'The request is invalid; `details` lists every problem with its JSON path',
  401: 'No valid credential; `WWW-Authenticate` names the scheme and why',
  402: 'The payment was declined',
  403: 'Authenticated, but not allowed to do this',
  404: 'No such object for this caller',
  409: 'Conflicts with the current state (idempotency, balance, limits, object state)',
  413: 'The body is larger than this deployment accepts (BODY_LIMIT_BYTES)',
  415: 'The Content-Type is not accepted here',
  422: 'Understood but cannot be done (limits, unverifiable result, refused upstream)',
  429: 'Too many requests; retry after `Retry-After` seconds',
  500: 'An unexpected error; quote the request id when reporting it',
  502: 'An upstream service (payment processor, chat or speech service) failed',
  503: 'Not available right now (draining, database unreachable, not configured, busy); retry',
  504: 'An upstream service did not answer in time',
};

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Response headers as components, referenced by every response that carries them. */
export const RESPONSE_HEADERS: Json = {
  'X-Request-Id': { description: 'The request id (the one sent, when it was 1–128 of A-Za-z0-9._:-), also in the body and the logs', schema: { type: 'string', maxLength: 128 } },
  'RateLimit-Limit': { description: 'Requests allowed per minute in this route’s bucket', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 1 } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  'WWW-Authenticate': { required: true, description: 'The auth scheme and realm (RFC 6750); `error="invalid_token"` when a token was sent and refused', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: 'Present on a replay: this is the stored answer of the first request with this idempotency key', schema: { type: 'string', enum: ['true'] } },
  Location: {
    required: true,
    description: 'Where the created object is (a 202: the job or delivery to poll; a 303: the redirect target)',
    schema: { type: 'string' },
  },
};

function interfaceOf(surface: Surface): ErrorInterface {
  // Raw routes (operations, OAuth) answer framework errors in the Jobs shape; pages in the envelope.
  return surface === 'platform' || surface === 'page' ? 'platform' : 'jobs';
}

/** Whether every way to call the operation needs a bearer token this service checks (a 401 otherwise). */
function needsToken(security: unknown): boolean {
  if (!Array.isArray(security) || security.length === 0) return false;
  return security.every((alt: Json) => Object.keys(alt).some((k) => k === 'session' || k === 'jobsToken' || k === 'jobsOAuth'));
}

/** Whether a bearer token of this service is one way to call the operation (so a 403 for a machine token without the scope). */
function acceptsBearer(security: unknown): boolean {
  return Array.isArray(security) && security.some((alt: Json) => Object.keys(alt).some((k) => k === 'session' || k === 'jobsToken' || k === 'jobsOAuth'));
}

function derivedStatuses(method: string, op: Json, facts: RouteFacts): number[] {
  const out = [400, 500];
  if (needsToken(op['security'])) out.push(401);
  // A machine token is refused with 403 where it lacks the scope (or the route is a person's).
  if (acceptsBearer(op['security'])) out.push(403);
  // The OAuth token endpoint answers a body it refuses as 400 invalid_request (RFC 6749 §5.2).
  if (BODY_METHODS.has(method) && !facts.oauthErrors) {
    out.push(413);
    if (!facts.anyContentType) out.push(415);
  }
  // An Idempotency-Key reused with another request, or still in flight.
  if (facts.idempotent) out.push(409);
  if (facts.rateLimited) out.push(429);
  // Draining refuses every request but the raw ones (probes, OAuth, docs) with 503.
  if (facts.surface !== 'raw') out.push(503);
  return out;
}

/**
 * Operations whose 202 has no object to poll: a reset request is accepted whether or not the email
 * has an account (a Location would tell). Every other 202 names what it queued in Location.
 */
const ACCEPTED_WITHOUT_OBJECT = new Set(['forgotPassword']);

function headersFor(status: number, facts: RouteFacts, jobsSubmit: boolean, operationId: unknown): Json {
  const h: Json = { 'X-Request-Id': header('X-Request-Id') };
  if (facts.rateLimited) {
    for (const n of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) h[n] = header(n);
  }
  if (status === 401) h['WWW-Authenticate'] = header('WWW-Authenticate');
  const inFlight = status === 409 && (facts.idempotent || jobsSubmit);
  if (status === 429 || status === 503 || inFlight) h['Retry-After'] = header('Retry-After');
  if ((facts.idempotent || jobsSubmit) && status < 500) h['Idempotent-Replayed'] = header('Idempotent-Replayed');
  if (status === 303 || (status === 202 && !ACCEPTED_WITHOUT_OBJECT.has(String(operationId)))) h['Location'] = header('Location');
  return h;
}

/** Replaces every circuit marker by the accepted input forms. */
function expandCircuits(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(expandCircuits);
  if (node === null || typeof node !== 'object') return node;
  const o = node as Json;
  const forms = ['CircuitV02', 'CircuitV01', 'QasmInput'].map((id) => ({ $ref: `#/components/schemas/${id}` }));
  const description = typeof o['description'] === 'string' ? o['description'] : 'A circuit';
  if (o[CIRCUIT_INPUT] === true) return { description, oneOf: forms };
  if (o[CIRCUIT_ANY_INPUT] === true) {
    const broken = {
      type: 'object',
      additionalProperties: true,
      maxProperties: CIRCUIT_MAX_MEMBERS,
      description: 'Any circuit-shaped object, valid or not: the answer lists every problem at its path',
    };
    return { description, anyOf: [...forms, broken] };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, expandCircuits(v)]));
}

function finishOperation(path: string, method: string, op: Json): void {
  const facts = op[FACTS] as RouteFacts | undefined;
  delete op[FACTS];
  if (facts === undefined) return;
  const iface = interfaceOf(facts.surface);
  if (op['security'] === undefined) op['security'] = [];
  const body = op[REQUEST_BODY];
  if (body !== undefined) {
    op['requestBody'] = body;
    delete op[REQUEST_BODY];
  }
  // A query parameter with a server default may be left out, though TypeBox lists it as required
  // (the handler always sees a value): a generated client would otherwise demand it.
  for (const p of (op['parameters'] ?? []) as Json[]) {
    if (p['in'] === 'query' && p['required'] === true && (p['schema'] as Json | undefined)?.['default'] !== undefined) p['required'] = false;
  }
  const jobsSubmit = method === 'post' && path === '/v1/jobs';
  const responses = (op['responses'] ?? {}) as Record<string, Json>;
  for (const s of derivedStatuses(method, op, facts)) responses[String(s)] ??= {};
  for (const [key, r] of Object.entries(responses)) {
    const status = Number(key);
    if (status >= 400) {
      // A route may declare its own error body (OAuth, readiness, HTML pages); otherwise the interface's.
      const content = r['content'] as Record<string, { schema?: Json }> | undefined;
      const ref = content?.['application/json']?.schema?.['$ref'];
      const generic = content === undefined || (typeof ref === 'string' && /#\/components\/schemas\/(Platform|Jobs)Error\d+$/.test(ref));
      if (generic && errorCodes(iface, status).length > 0) {
        r['content'] = { 'application/json': { schema: { $ref: `#/components/schemas/${errorSchemaId(iface, status)}` } } };
      }
      if (r['description'] === undefined || r['description'] === 'Default Response') r['description'] = ERROR_TEXT[status] ?? `HTTP ${status}`;
    }
    // Headers a route declares itself stay; the edge's are the shared components.
    r['headers'] = { ...(r['headers'] as Json | undefined), ...headersFor(status, facts, jobsSubmit, op['operationId']) };
  }
  op['responses'] = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  const examples = typeof op['operationId'] === 'string' ? OPERATION_EXAMPLES[op['operationId']] : undefined;
  if (examples !== undefined) addExamples(op, examples);
}

function addExamples(op: Json, ex: { request?: Json; responses?: Record<string, Json> }): void {
  const media = (op['requestBody'] as Json | undefined)?.['content'] as Record<string, Json> | undefined;
  if (ex.request !== undefined && media?.['application/json'] !== undefined) media['application/json']['examples'] = ex.request;
  for (const [status, examples] of Object.entries(ex.responses ?? {})) {
    const content = ((op['responses'] as Record<string, Json>)[status]?.['content'] ?? {}) as Record<string, Json>;
    if (content['application/json'] !== undefined) content['application/json']['examples'] = examples;
  }
}

/** @fastify/swagger's `transformObject`: the last pass over the whole document. */
export function finishDocument({ openapiObject }: { openapiObject: Partial<Json> }): Json {
  const doc = expandCircuits(openapiObject) as Json;
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) finishOperation(path, method, op);
  }
  return doc;
}
