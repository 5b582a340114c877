import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, FastifyReply, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { QrailTypeProvider } from './type-provider.js';
import type { Config } from '../config/config.js';
import type { Database } from '../store/db.js';
import type { Services } from '../composition/services.js';
import type { ComputePool } from '../compute/compute-pool.js';
import type { CredentialScope } from '../auth/credentials.js';
import type { OrgRole } from '../orgs/roles.js';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, QrailTypeProvider>;

/** A person signed in with a session: holds every scope their role in the organization allows. */
export interface PersonPrincipal {
  readonly kind: 'person';
  readonly userId: string;
  readonly accountId: string;
  readonly sessionId: string;
  readonly email: string;
  readonly userCreatedAt: Date;
  /** The organization the request acts in (`accountId`): the person's role there, and whether it is their personal one. */
  readonly role: OrgRole;
  readonly personal: boolean;
}

/** A machine credential or one of its access tokens on the platform interface: the same account, its own scopes. */
export interface AgentPrincipal {
  readonly kind: 'agent';
  readonly accountId: string;
  readonly scopes: readonly CredentialScope[];
  readonly credentialId: string | null;
  /** `credential:<id>`, `session:<id>` or `jwt:<iss>#<sub>`, for logs and audit. */
  readonly subject: string;
}

/**
 * Failed attempts at a shared secret (the operator token), counted per client address in their
 * own one-minute window. `check` runs before the secret is compared: once an address has failed
 * `perMinute` times, every attempt from it is 429 until the window ends, the right secret
 * included, so a guess that lands cannot be told from one that did not (issue #34 item 5).
 */
export interface FailedAuthLimit {
  check(req: FastifyRequest, bucket: string): Promise<void>;
  record(req: FastifyRequest, bucket: string): Promise<void>;
}

/** Who is calling a platform route: money, limits and ownership go by `accountId` either way. */
export type Principal = PersonPrincipal | AgentPrincipal;

/** What a request holding an Idempotency-Key reservation carries (plugins/idempotency.ts). */
export interface IdempotencyState {
  /** Stable across retries of one request after a crash or 5xx: suffix for downstream idempotency keys. */
  readonly runToken: string;
  readonly owner: string;
  readonly keyHash: string;
  readonly secret: Buffer;
}

/** What keeps a POST route idempotent (plugins/idempotency.ts): the header, a body field, or nothing (both null). */
export interface IdempotentRoute {
  /** Idempotency-Key honoured, keys scoped to the account or to the operator. */
  readonly header: 'account' | 'operator' | null;
  /** The required body field its domain keys the request by, in the same mechanism. */
  readonly field: 'idempotency_key' | 'client_token' | null;
}

/**
 * Which response shape a route uses: platform envelope, plain JSON (Account Jobs), raw (ops,
 * docs; errors in the Jobs shape), or page (HTML pages under /v1: raw success, enveloped errors).
 */
export type Surface = 'platform' | 'jobs' | 'raw' | 'page';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Database;
    services: Services;
    /** Worker threads for CPU-heavy requests (COMPUTE_THREADS); see src/compute/compute-pool.ts. */
    compute: ComputePool;
    draining: boolean;
    /** Where rate limits are counted: in Redis (`shared`), in this process while Redis is failing (`local`), or in-process by configuration (`memory`). */
    rateLimitSharing: () => 'shared' | 'local' | 'memory';
    /** Every route registered, for the OpenAPI completeness test and 405 answers. */
    qrailRoutes: ReadonlyArray<{ method: string; url: string }>;
    /** Every POST route, by `POST <url>`, with what keeps it idempotent (plugins/idempotency.ts). */
    idempotentRoutes: ReadonlyMap<string, IdempotentRoute>;
    /** The surface of the routes nearest to a URL no route matched (404, 405, router errors). */
    surfaceForUrl: (url: string) => Surface;
    /** Failed attempts at the operator token, limited per address (plugins/rate-limit.ts). */
    failedAuth: FailedAuthLimit;
    /** Authenticates (401) and checks the route's declared access (403) before the body is read: src/http/route-access.ts. */
    requireSession: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** As requireSession, where anonymous callers are served too (an invalid token is ignored; a machine token still needs its scope). */
    optionalSession: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
    startedAt: bigint;
    /** The stable code of the error this request was answered with (plugins/envelope.ts sets it; logs and metrics read it). */
    errorCode: string | undefined;
    /** Set while this request holds an Idempotency-Key reservation (plugins/idempotency.ts). */
    idempotency: IdempotencyState | undefined;
  }
  interface FastifyContextConfig {
    surface?: Surface;
    /** Rate-limit bucket; requests per minute per client in that bucket. */
    rateLimit?: { bucket: string; perMinute: number } | false;
    /** Honour the Idempotency-Key header, keys scoped to the session's account or to the operator. */
    idempotent?: 'account' | 'operator';
    /** The route parses any Content-Type itself (so never answers 415); for the OpenAPI document. */
    anyContentType?: boolean;
    /** Every error of the route is an RFC 6749 §5.2 body (the OAuth token endpoint): src/http/oauth-error.ts. */
    oauthErrors?: boolean;
    /** The required body field that carries the request's own idempotency key (kept by its domain in the same mechanism). */
    idempotencyField?: 'idempotency_key' | 'client_token';
  }
}
