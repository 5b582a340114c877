/**
 * @qrail/client — a typed client for the qrail API. Types are generated from the service's
 * OpenAPI document (src/generated/openapi.ts); the rest is the small layer generation does not
 * give: session login, OAuth token renewal, idempotency keys, retries, job waiting, typed errors.
 */
export { createClient, type ClientOptions, type QrailClient } from './client.js';
export { QrailApiError, type ErrorShape } from './errors.js';
export type { CallOptions, TypedRequest, RequestFn } from './call.js';
export type { ApiResponse, AuthMode, RequestOptions, RetryOptions } from './transport.js';
export type { AccessToken, ClientCredentials } from './jobs-auth.js';
export type { WaitOptions } from './poll.js';
export type { RunBody, Provider } from './areas/execution.js';
export type { OptimizeBody } from './areas/compute.js';
export type { SubmitJob } from './areas/jobs.js';
export type { AgentCredential, LoginResult, NewCredential, RegisterResult } from './areas/auth.js';
export { verifyWebhookSignature, type VerifyWebhookOptions, type WebhookVerification } from './webhooks.js';
export { KEYED_POSTS, SAFE_POSTS, mayRetry, type KeyedBy } from './idempotency.js';
export type * from './types.js';
