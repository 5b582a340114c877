import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../../config/config.js';
import { CREDENTIAL_SCOPES, SCOPE_DESCRIPTIONS } from '../../auth/credentials.js';
import { SERVICE_VERSION } from '../../version.js';
import { annotateRoute, finishDocument, RESPONSE_HEADERS } from './finish-document.js';

/**
 * The OpenAPI 3.1 document served at /openapi.json and /docs/json: what @fastify/swagger builds
 * from the routes' schemas, plus what this file and finish-document.ts add (tags, servers,
 * security schemes, edge errors and headers). docs/decisions/api-openapi-document.md.
 */

/** Tag order is the order of the reference page. */
export const TAGS = [
  {
    name: 'auth',
    description:
      'Accounts and bearer sessions (`qrs_…` tokens from login); agent credentials for the Account Jobs interface and the OAuth 2 client-credentials endpoint that issues its access tokens.',
  },
  {
    name: 'circuits',
    description:
      'Circuit wire format 0.2 (legacy 0.1 and OpenQASM 2/3 accepted), validation with every problem at its JSON path, analysis, examples, and proof-gated optimization. Open (rate limited); a session lifts the anonymous compute limits.',
  },
  {
    name: 'coupling',
    description: 'Which qubit pairs a circuit couples: from its structure, or measured from its final state (concurrence, entropies, mutual information); and what a transformation preserves.',
  },
  {
    name: 'execution',
    description: 'Runs on Provider One and Provider Two: simulators answer at once; hardware runs go quote → hold → continue and are paid from the wallet. Safe retries with client_token.',
  },
  { name: 'billing', description: 'The prepaid wallet (USD as six-decimal strings), spend controls, auto-recharge, hardware quotes and holds, and a dashboard. Owner session required.' },
  {
    name: 'billing-processor',
    description: 'Top-ups through the payment processor (Stripe, or the embedded sandbox): customers, setup and payment intents, hosted checkout and portal, reconciliation, and the signed webhook.',
  },
  {
    name: 'webhooks',
    description:
      'Outbound webhooks: endpoints that receive signed events (job and execution state changes, expired holds, low balance, auto-recharge outcomes), the delivery log with response codes, redelivery and the event list. Owner session required.',
  },
  {
    name: 'orgs',
    description:
      'Organizations: a team shares a wallet. Members with roles (owner, admin, developer, billing, viewer), invitations by mail, per-member budgets and an append-only audit log. Send `Qrail-Org: <org_id>` to act in one; without it a person acts in their personal organization.',
  },
  { name: 'billing-sandbox', description: 'Hosted pages of the embedded sandbox processor (HTML for a person in a browser); 404 with any other processor.' },
  {
    name: 'jobs',
    description:
      'The Account Jobs interface for agents: a live catalog of capabilities, prepaid jobs with idempotency keys, results and receipts. Plain JSON bodies and `{error, request_id}` errors (no envelope); Jobs credentials only.',
  },
  { name: 'media', description: 'Chat and text-to-speech, when this deployment configures them (ask GET /v1/media/capabilities first).' },
  { name: 'operator', description: 'Operator endpoints (QRAIL_OPERATOR_TOKEN): promotional credit, the ledger reconciliation check and the mail outbox.' },
  { name: 'operations', description: 'Liveness, readiness and Prometheus metrics for probes and monitoring (plain bodies, no envelope, not rate limited).' },
];

function securitySchemes(config: Config) {
  return {
    session: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'qrs_ session token',
      description:
        'A person’s platform session: `Authorization: Bearer qrs_…` from POST /v1/auth/login. Holds every scope, so it is accepted by every platform operation; not by the Account Jobs interface (exchange it at POST /v1/oauth/token).',
    },
    jobsToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT access token or qrj_ machine credential',
      description:
        'A machine caller: a JWT access token from POST /v1/oauth/token, or an agent’s machine credential (`qrj_…`) itself. Accepted by the Account Jobs interface and by the platform operations whose requirement lists one of its scopes ' +
        '(403 INSUFFICIENT_SCOPE otherwise, SESSION_REQUIRED on a person’s operations). Scopes: ' +
        CREDENTIAL_SCOPES.join(', ') +
        '.',
    },
    jobsOAuth: {
      type: 'oauth2',
      description: 'OAuth 2 client credentials (RFC 6749 §4.4): an agent credential is the client; the access token is a JWT carrying the credential’s scopes (or fewer, by `scope`).',
      flows: {
        clientCredentials: {
          tokenUrl: `${config.publicBaseUrl}/v1/oauth/token`,
          scopes: Object.fromEntries(CREDENTIAL_SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]])),
        },
      },
    },
    clientBasic: { type: 'http', scheme: 'basic', description: 'Client authentication at the token endpoint: client_id:client_secret (or both in the body instead).' },
    operatorToken: { type: 'http', scheme: 'bearer', description: 'The deployment’s QRAIL_OPERATOR_TOKEN.' },
    processorSignature: { type: 'apiKey', in: 'header', name: 'Stripe-Signature', description: 'HMAC-SHA256 of the raw body by the processor’s webhook secret (t=…,v1=…), checked within ±300 s.' },
  };
}

export function openapiOptions(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'qrail',
        version: SERVICE_VERSION,
        description:
          'Quantum circuits, execution and prepaid billing. Platform responses use the `{status, data | error, meta}` envelope; the Account Jobs interface ' +
          '(tag jobs) uses plain JSON. Every error has a stable `code` (docs/errors.md). Walk-through with every request and answer: docs/api-guide.md.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: config.publicBaseUrl, description: 'This deployment (PUBLIC_BASE_URL)' }],
      tags: TAGS,
      components: { securitySchemes: securitySchemes(config) as never, headers: RESPONSE_HEADERS as never },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json['$id'] === 'string' ? json['$id'] : `def-${i}`) },
    transform: annotateRoute,
    transformObject: finishDocument as never,
  };
}
