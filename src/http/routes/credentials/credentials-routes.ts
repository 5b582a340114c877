/**
 * How agents get Jobs credentials (DESIGN §4): owners manage machine credentials with their
 * platform session; a credential is an OAuth 2 client for the client-credentials grant
 * (RFC 6749 §4.4) at POST /v1/oauth/token, which issues RFC 9068 JWT access tokens for the
 * Jobs audience. The issuer's keys and metadata are public (RFC 8414, RFC 7517).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CREDENTIAL_SCOPES, isCredentialScope, type CredentialRecord, type CredentialScope } from '../../../auth/credentials.js';
import { fail } from '../../../errors/app-error.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import { verifiedEmail } from '../../plugins/verified-email.js';
import { duplicateItemDetails } from '../../../errors/duplicate-items.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { REQUEST_BODY } from '../../openapi/finish-document.js';
import { Obj } from '../../schema-helpers.js';
import { personOf } from '../../plugins/auth.js';
import { ORG_ERRORS } from '../../../orgs/error-codes.js';
import { ROLE_SCOPES, roleAllows } from '../../../orgs/roles.js';
import { actorOf } from '../orgs/actor.js';
import { CredentialScopeRef } from './schemas.js';
import { TOKEN_EXCHANGE_GRANT, TokenExchangeRequest, exchangeSession } from './token-exchange.js';

const OAuthError = Obj(
  {
    error: Type.Union(
      ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope', 'temporarily_unavailable', 'server_error'].map((e) => Type.Literal(e)),
      { description: 'RFC 6749 §5.2 error code' },
    ),
    error_description: Type.String(),
  },
  { description: 'An OAuth 2 error (RFC 6749 §5.2)' },
);

const TokenRequest = Type.Object(
  {
    grant_type: Type.Literal('client_credentials'),
    client_id: Type.Optional(Type.String({ maxLength: 128, description: 'The credential id (or send it with HTTP Basic)' })),
    client_secret: Type.Optional(Type.String({ maxLength: 256, description: 'The qrj_ secret (or send it with HTTP Basic, not both)' })),
    scope: Type.Optional(Type.String({ maxLength: 256, description: 'Space-separated subset of the credential’s scopes (default: all of them)' })),
  },
  { additionalProperties: false },
);

const CredentialView = Obj({
  credential_id: Type.String({ format: 'uuid', description: 'Also the OAuth client_id' }),
  name: Type.String(),
  scopes: Type.Array(CredentialScopeRef),
  secret_hint: Type.String({ description: 'Last four characters of the secret' }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  created_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'The member who created it (user id); null for credentials older than organizations' }),
});

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    // Repeats are checked after validation, linearly (uniqueItems is pairwise in Ajv).
    scopes: Type.Array(CredentialScopeRef, { minItems: 1, maxItems: 16, description: 'Each scope at most once: which routes each one opens is in docs/security.md' }),
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
    created_by: c.createdBy,
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

  app.post(
    '/v1/auth/credentials',
    {
      // Creating machine credentials needs a confirmed email (issue #26).
      onRequest: [app.requireSession, verifiedEmail(app)],
      config: { idempotent: 'account' },
      schema: {
        tags: ['auth'],
        operationId: 'createAgentCredential',
        summary: 'Create an agent (machine) credential for both interfaces, with its scopes; the secret is returned once at data.secret',
        body: CreateBody,
        response: {
          201: okResponse(
            Obj({
              ...CredentialView.properties,
              secret: Type.String({ pattern: '^qrj_', description: 'The machine credential: a bearer token of the Account Jobs interface and the OAuth client_secret. Shown once.' }),
              client_id: Type.String({ format: 'uuid', description: 'The OAuth client_id (the credential id)' }),
              token_endpoint: Type.String({ format: 'uri' }),
            }),
            'The new credential with its secret (shown once)',
          ),
          ...errors(403),
        },
      },
    },
    async (req, reply) => {
      const p = personOf(req.principal);
      const repeated = duplicateItemDetails(req.body.scopes, '/scopes');
      if (repeated.length > 0) throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'A scope is listed more than once.', repeated);
      let expiresAt: Date | null = null;
      if (req.body.expires_at !== undefined) {
        expiresAt = new Date(req.body.expires_at);
        if (expiresAt.getTime() <= Date.now()) {
          throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'The credential would already be expired.', [{ in: 'body', path: '/expires_at', code: 'TOO_SMALL', message: 'must be in the future' }]);
        }
      }
      const allowed = ROLE_SCOPES[p.role];
      const beyond = req.body.scopes.filter((s) => !allowed.includes(s));
      if (beyond.length > 0) {
        throw fail(ORG_ERRORS.ORG_SCOPE_BEYOND_ROLE, `Your role (${p.role}) cannot give ${beyond.join(', ')}.`, { role: p.role, allowed_scopes: [...allowed], path: '/scopes' });
      }
      // The audit event is written in the credential's own transaction.
      const { credential, secret } = await credentials.create(p.accountId, p.userId, { name: req.body.name, scopes: req.body.scopes, expiresAt }, req.idempotency?.runToken, actorOf(req));
      reply.code(201).header('cache-control', 'no-store');
      return { ...view(credential), secret, client_id: credential.id, token_endpoint: `${app.config.publicBaseUrl}/v1/oauth/token` };
    },
  );

  app.get(
    '/v1/auth/credentials',
    {
      onRequest: app.requireSession,
      schema: {
        tags: ['auth'],
        operationId: 'listAgentCredentials',
        summary: 'The account’s agent credentials (never their secrets)',
        response: { 200: okResponse(Obj({ credentials: Type.Array(CredentialView) }), 'Every credential of the account, revoked and expired ones included') },
      },
    },
    async (req) => {
      const p = personOf(req.principal);
      // Each member sees their own credentials; those who manage the organization's credentials see all.
      const all = await credentials.list(p.accountId);
      const mine = roleAllows(p.role, 'credentials') ? all : all.filter((c) => c.createdBy === p.userId);
      return { credentials: mine.map((c) => view(c)) };
    },
  );

  app.delete(
    '/v1/auth/credentials/:credential_id',
    {
      onRequest: app.requireSession,
      schema: {
        tags: ['auth'],
        operationId: 'revokeAgentCredential',
        summary: 'Revoke an agent credential at once (its secret and its access tokens stop working)',
        params: Type.Object({ credential_id: Type.String({ format: 'uuid' }) }),
        response: { 200: okResponse(Obj({ credential: CredentialView }), 'The credential, revoked'), ...errors(404) },
      },
    },
    async (req) => {
      const p = personOf(req.principal);
      const id = req.params.credential_id.toLowerCase();
      if (!roleAllows(p.role, 'credentials')) {
        const own = (await credentials.list(p.accountId)).some((c) => c.id === id && c.createdBy === p.userId);
        if (!own) throw fail(ORG_ERRORS.ORG_ROLE_FORBIDDEN, `Your role (${p.role}) revokes only the credentials you created.`, { role: p.role, permission: 'credentials' });
      }
      const revoked = await credentials.revoke(p.accountId, id, actorOf(req));
      return { credential: view(revoked) };
    },
  );

  app.post(
    '/v1/oauth/token',
    {
      config: { surface: 'raw', oauthErrors: true, rateLimit: { bucket: 'auth', perMinute: app.config.rateLimit.authPerMinute * 10 } },
      schema: {
        tags: ['auth'],
        operationId: 'issueAccessToken',
        summary: 'OAuth 2 token endpoint: client credentials (RFC 6749 §4.4) or a session exchanged (RFC 8693) for a short-lived Jobs access token (RFC 9068)',
        security: [{ clientBasic: [] }, {}],
        // The handler reads the form itself (RFC 6749 answers, not the validator's): documented, not validated.
        [REQUEST_BODY]: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: Type.Union([TokenRequest, TokenExchangeRequest]) },
            'application/json': { schema: Type.Union([TokenRequest, TokenExchangeRequest]) },
          },
        },
        response: {
          200: Obj(
            {
              access_token: Type.String({ description: 'A JWT (RFC 9068), accepted by the Account Jobs interface and, within its scopes, the platform interface' }),
              token_type: Type.Literal('Bearer'),
              expires_in: Type.Integer({ minimum: 1, description: 'Seconds' }),
              scope: Type.String({ description: 'Space-separated scopes granted' }),
              issued_token_type: Type.Optional(Type.Literal('urn:ietf:params:oauth:token-type:access_token', { description: 'Token exchange only (RFC 8693)' })),
            },
            { description: 'An access token' },
          ),
          // Every refusal is RFC 6749 §5.2, the edge's included (broken, empty, too large or too deep
          // bodies, another media type: 400 invalid_request; src/http/oauth-error.ts).
          400: { description: 'The request or grant is malformed, or the body was refused (too large, another media type, broken JSON)', content: { 'application/json': { schema: OAuthError } } },
          401: { description: 'Client authentication failed (WWW-Authenticate: Basic)', content: { 'application/json': { schema: OAuthError } } },
          429: { description: 'Too many requests; retry after `Retry-After` seconds (temporarily_unavailable)', content: { 'application/json': { schema: OAuthError } } },
          500: { description: 'An unexpected error (server_error)', content: { 'application/json': { schema: OAuthError } } },
          503: { description: 'The database is unreachable; retry (temporarily_unavailable)', content: { 'application/json': { schema: OAuthError } } },
        },
      },
    },
    async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (body['grant_type'] === TOKEN_EXCHANGE_GRANT) {
        const x = await exchangeSession(app, body);
        if (!x.ok) return oauthError(reply, x.status, x.error, x.description);
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
        return x.body;
      }
      if (body['grant_type'] !== 'client_credentials') {
        return oauthError(reply, 400, body['grant_type'] === undefined ? 'invalid_request' : 'unsupported_grant_type', `grant_type must be client_credentials or ${TOKEN_EXCHANGE_GRANT}.`);
      }
      const client = clientCredentials(req, body);
      if (client === 'conflict') return oauthError(reply, 400, 'invalid_request', 'Use HTTP Basic or client_secret in the body, not both.');
      if (client === 'malformed') return oauthError(reply, 400, 'invalid_request', 'The HTTP Basic credentials are not valid form-urlencoded text.');
      if (client === null) return oauthError(reply, 401, 'invalid_client', 'Client authentication is required (HTTP Basic with client_id:client_secret, or both in the body).');
      const r = await credentials.authenticateClient(client.id, client.secret);
      if (r.state !== 'valid' || r.credential === undefined) {
        return oauthError(
          reply,
          401,
          'invalid_client',
          r.state === 'revoked' ? 'The client credential was revoked.' : r.state === 'expired' ? 'The client credential has expired.' : 'Client authentication failed.',
        );
      }
      let scopes: CredentialScope[] | undefined;
      if (typeof body['scope'] === 'string' && body['scope'].trim() !== '') {
        const asked = body['scope'].trim().split(/\s+/);
        if (!asked.every((s): s is CredentialScope => isCredentialScope(s) && r.credential?.scopes.includes(s) === true)) {
          return oauthError(reply, 400, 'invalid_scope', `The requested scope exceeds the credential's scopes (${r.credential.scopes.join(' ')}).`);
        }
        scopes = asked;
      }
      const t = await jobsTokens.issue(r.credential, scopes);
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return { access_token: t.accessToken, token_type: 'Bearer' as const, expires_in: t.expiresIn, scope: t.scope };
    },
  );

  app.get(
    '/.well-known/jwks.json',
    {
      config: { surface: 'raw' },
      schema: {
        tags: ['auth'],
        operationId: 'getJwks',
        summary: 'Public keys of the Jobs token issuer (RFC 7517)',
        response: {
          200: Obj(
            {
              keys: Type.Array(
                Obj({
                  kty: Type.String(),
                  crv: Type.Optional(Type.String()),
                  x: Type.Optional(Type.String()),
                  y: Type.Optional(Type.String()),
                  n: Type.Optional(Type.String()),
                  e: Type.Optional(Type.String()),
                  kid: Type.String(),
                  alg: Type.String(),
                  use: Type.Literal('sig'),
                }),
              ),
            },
            { description: 'The JSON Web Key Set of the issuer' },
          ),
        },
      },
    },
    async (_req, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return jobsTokens.jwks();
    },
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { surface: 'raw' },
      schema: {
        tags: ['auth'],
        operationId: 'getAuthorizationServerMetadata',
        summary: 'Metadata of the Jobs token issuer (RFC 8414)',
        response: {
          200: Obj(
            {
              issuer: Type.String({ format: 'uri' }),
              token_endpoint: Type.String({ format: 'uri' }),
              jwks_uri: Type.String({ format: 'uri' }),
              grant_types_supported: Type.Array(Type.Union([Type.Literal('client_credentials'), Type.Literal(TOKEN_EXCHANGE_GRANT)])),
              token_endpoint_auth_methods_supported: Type.Array(Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post')])),
              scopes_supported: Type.Array(CredentialScopeRef),
              response_types_supported: Type.Array(Type.Literal('token')),
              jobs_audience: Type.String({ description: 'The `aud` of the access tokens it issues' }),
            },
            { description: 'RFC 8414 authorization server metadata' },
          ),
        },
      },
    },
    async () => ({
      issuer: app.config.publicBaseUrl,
      token_endpoint: `${app.config.publicBaseUrl}/v1/oauth/token`,
      jwks_uri: `${app.config.publicBaseUrl}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials', TOKEN_EXCHANGE_GRANT],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [...CREDENTIAL_SCOPES],
      response_types_supported: ['token'],
      jobs_audience: jobsTokens.audience,
    }),
  );
}
