/**
 * How agents get Jobs credentials (DESIGN §4): owners manage machine credentials with their
 * platform session; a credential is an OAuth 2 client for the client-credentials grant
 * (RFC 6749 §4.4) at POST /v1/oauth/token, which issues RFC 9068 JWT access tokens for the
 * Jobs audience. The issuer's keys and metadata are public (RFC 8414, RFC 7517).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { JOBS_SCOPES, isJobsScope, type CredentialRecord, type JobsScope } from '../../../auth/credentials.js';
import { fail } from '../../../errors/app-error.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import { duplicateItemDetails } from '../../../errors/duplicate-items.js';
import type { App } from '../../app-types.js';
import { JobsErrorSchema, errorResponses, okResponse } from '../../envelope-schemas.js';

const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() });

const CredentialView = Type.Object({
  credential_id: Type.String({ format: 'uuid', description: 'Also the OAuth client_id' }),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  secret_hint: Type.String({ description: 'Last four characters of the secret' }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
});

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    // Repeats are checked after validation, linearly (uniqueItems is pairwise in Ajv).
    scopes: Type.Array(Type.Union(JOBS_SCOPES.map((s) => Type.Literal(s))), { minItems: 1, maxItems: 16, description: 'Each scope at most once' }),
    expires_at: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'Optional expiry; must be in the future' })),
  },
  { additionalProperties: false },
);

function view(c: CredentialRecord, now = Date.now()) {
  const status = c.revokedAt !== null ? 'revoked' : c.expiresAt !== null && c.expiresAt.getTime() <= now ? 'expired' : 'active';
  return {
    credential_id: c.id,
    name: c.name,
    scopes: [...c.scopes],
    secret_hint: c.secretHint,
    created_at: c.createdAt.toISOString(),
    expires_at: c.expiresAt?.toISOString() ?? null,
    revoked_at: c.revokedAt?.toISOString() ?? null,
    last_used_at: c.lastUsedAt?.toISOString() ?? null,
    status,
  };
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  reply.code(status).header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (status === 401) reply.header('www-authenticate', 'Basic realm="qrail-jobs"');
  return reply.type('application/json; charset=utf-8').send({ error, error_description: description });
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded; broken escapes or NUL make them malformed, not a server error. */
function decodeBasicPart(s: string): string | undefined {
  try {
    const d = decodeURIComponent(s);
    return d.includes('\u0000') ? undefined : d;
  } catch {
    return undefined;
  }
}

function clientCredentials(req: FastifyRequest, body: Record<string, unknown>): { id: string; secret: string; basic: boolean } | null | 'conflict' | 'malformed' {
  const h = req.headers.authorization;
  let basic: { id: string; secret: string } | undefined;
  if (h !== undefined) {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(h);
    if (m !== null) {
      const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      if (i > 0) {
        const id = decodeBasicPart(decoded.slice(0, i));
        const secret = decodeBasicPart(decoded.slice(i + 1));
        if (id === undefined || secret === undefined) return 'malformed';
        basic = { id, secret };
      }
    }
  }
  const bodyId = typeof body['client_id'] === 'string' ? body['client_id'] : undefined;
  const bodySecret = typeof body['client_secret'] === 'string' ? body['client_secret'] : undefined;
  // RFC 6749 §2.3: a client must not use more than one authentication method per request.
  if (basic !== undefined && bodySecret !== undefined) return 'conflict';
  if (basic !== undefined) return { ...basic, basic: true };
  if (bodyId !== undefined && bodySecret !== undefined) return { id: bodyId, secret: bodySecret, basic: false };
  return null;
}

export default async function credentialsRoutes(app: App): Promise<void> {
  const { credentials, jobsTokens } = app.services;

  // The token endpoint takes form bodies (RFC 6749 §4.4.2); scoped to this plugin.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.post('/v1/auth/credentials', {
    onRequest: app.requireSession,
    config: { idempotent: 'account' },
    schema: {
      tags: ['auth'], summary: 'Create an agent (machine) credential for the Account Jobs interface; the secret is returned once at data.secret',
      security: [{ bearer: [] }], body: CreateBody,
      response: { 201: okResponse(Type.Intersect([CredentialView, Type.Object({ secret: Type.String(), client_id: Type.String(), token_endpoint: Type.String() })])), ...errorResponses },
    },
  }, async (req, reply) => {
    const p = req.principal;
    if (p === undefined) throw fail(HTTP_ERRORS.UNAUTHENTICATED, 'Authentication required.');
    const repeated = duplicateItemDetails(req.body.scopes, '/scopes');
    if (repeated.length > 0) throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'A scope is listed more than once.', repeated);
    let expiresAt: Date | null = null;
    if (req.body.expires_at !== undefined) {
      expiresAt = new Date(req.body.expires_at);
      if (expiresAt.getTime() <= Date.now()) {
        throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'The credential would already be expired.', [{ in: 'body', path: '/expires_at', code: 'TOO_SMALL', message: 'must be in the future' }]);
      }
    }
    const { credential, secret } = await credentials.create(p.accountId, p.userId, { name: req.body.name, scopes: req.body.scopes, expiresAt }, req.idempotency?.runToken);
    reply.code(201).header('cache-control', 'no-store');
    return { ...view(credential), secret, client_id: credential.id, token_endpoint: `${app.config.publicBaseUrl}/v1/oauth/token` };
  });

  app.get('/v1/auth/credentials', {
    onRequest: app.requireSession,
    schema: { tags: ['auth'], summary: 'The account’s agent credentials (never their secrets)', security: [{ bearer: [] }], response: { 200: okResponse(Type.Object({ credentials: Type.Array(CredentialView) })), ...errorResponses } },
  }, async (req) => {
    const p = req.principal;
    if (p === undefined) throw fail(HTTP_ERRORS.UNAUTHENTICATED, 'Authentication required.');
    return { credentials: (await credentials.list(p.accountId)).map((c) => view(c)) };
  });

  app.delete('/v1/auth/credentials/:credential_id', {
    onRequest: app.requireSession,
    schema: {
      tags: ['auth'], summary: 'Revoke an agent credential at once (its secret and its access tokens stop working)', security: [{ bearer: [] }],
      params: Type.Object({ credential_id: Type.String({ format: 'uuid' }) }),
      response: { 200: okResponse(Type.Object({ credential: CredentialView })), ...errorResponses },
    },
  }, async (req) => {
    const p = req.principal;
    if (p === undefined) throw fail(HTTP_ERRORS.UNAUTHENTICATED, 'Authentication required.');
    return { credential: view(await credentials.revoke(p.accountId, req.params.credential_id.toLowerCase())) };
  });

  app.post('/v1/oauth/token', {
    config: { surface: 'raw', rateLimit: { bucket: 'auth', perMinute: app.config.rateLimit.authPerMinute * 10 } },
    schema: {
      tags: ['auth'], summary: 'OAuth 2 client-credentials grant: a short-lived JWT access token for the Jobs audience (RFC 6749 §4.4, RFC 9068)',
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      response: {
        200: Type.Object({ access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer(), scope: Type.String() }),
        // RFC 6749 §5.2 errors from the grant itself; what the edge refuses first (a body too deep,
        // NUL bytes, an unsupported media type) comes in the Jobs error shape.
        400: Type.Union([OAuthError, JobsErrorSchema]),
        401: Type.Union([OAuthError, JobsErrorSchema]),
      },
    },
  }, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body['grant_type'] !== 'client_credentials') {
      return oauthError(reply, 400, body['grant_type'] === undefined ? 'invalid_request' : 'unsupported_grant_type', 'grant_type must be client_credentials.');
    }
    const client = clientCredentials(req, body);
    if (client === 'conflict') return oauthError(reply, 400, 'invalid_request', 'Use HTTP Basic or client_secret in the body, not both.');
    if (client === 'malformed') return oauthError(reply, 400, 'invalid_request', 'The HTTP Basic credentials are not valid form-urlencoded text.');
    if (client === null) return oauthError(reply, 401, 'invalid_client', 'Client authentication is required (HTTP Basic with client_id:client_secret, or both in the body).');
    const r = await credentials.authenticateClient(client.id, client.secret);
    if (r.state !== 'valid' || r.credential === undefined) {
      return oauthError(reply, 401, 'invalid_client', r.state === 'revoked' ? 'The client credential was revoked.' : r.state === 'expired' ? 'The client credential has expired.' : 'Client authentication failed.');
    }
    let scopes: JobsScope[] | undefined;
    if (typeof body['scope'] === 'string' && body['scope'].trim() !== '') {
      const asked = body['scope'].trim().split(/\s+/);
      if (!asked.every(isJobsScope) || !asked.every((s) => r.credential?.scopes.includes(s))) {
        return oauthError(reply, 400, 'invalid_scope', `The requested scope exceeds the credential's scopes (${r.credential.scopes.join(' ')}).`);
      }
      scopes = asked;
    }
    const t = await jobsTokens.issue(r.credential, scopes);
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    return { access_token: t.accessToken, token_type: 'Bearer' as const, expires_in: t.expiresIn, scope: t.scope };
  });

  app.get('/.well-known/jwks.json', {
    config: { surface: 'raw' },
    schema: { tags: ['auth'], summary: 'Public keys of the Jobs token issuer (RFC 7517)', response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) } },
  }, async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return jobsTokens.jwks();
  });

  app.get('/.well-known/oauth-authorization-server', {
    config: { surface: 'raw' },
    schema: { tags: ['auth'], summary: 'Metadata of the Jobs token issuer (RFC 8414)', response: { 200: Type.Object({}, { additionalProperties: true }) } },
  }, async () => ({
    issuer: app.config.publicBaseUrl,
    token_endpoint: `${app.config.publicBaseUrl}/v1/oauth/token`,
    jwks_uri: `${app.config.publicBaseUrl}/.well-known/jwks.json`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: [...JOBS_SCOPES],
    response_types_supported: ['token'],
    jobs_audience: jobsTokens.audience,
  }));
}
