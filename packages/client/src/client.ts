import { authArea, exchangeToken } from './areas/auth.js';
import { billingArea } from './areas/billing.js';
import { circuitsArea, couplingArea } from './areas/compute.js';
import { executionArea } from './areas/execution.js';
import { jobsArea } from './areas/jobs.js';
import { mediaArea } from './areas/media.js';
import { orgsArea } from './areas/orgs.js';
import { typedRequest } from './call.js';
import { newIdempotencyKey } from './idempotency.js';
import { JobsAuth, type ClientCredentials } from './jobs-auth.js';
import type { RetryOptions, TransportConfig } from './transport.js';

export interface ClientOptions {
  /** The service, e.g. `http://127.0.0.1:8080` (paths start at `/v1/…`). */
  baseUrl: string;
  /** A platform session token (`qrs_…`); `auth.login` sets one. */
  token?: string | undefined;
  /** Account Jobs: a bearer sent as is (an access token, or a `qrj_` machine credential secret). */
  jobsToken?: string | undefined;
  /** Account Jobs: client credentials, exchanged for access tokens renewed before they expire. */
  clientCredentials?: ClientCredentials | undefined;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
  /** Retries on 429 / 503 / network failures of requests that may be repeated; `false`: none. */
  retry?: RetryOptions | false | undefined;
  /** Gives up on one attempt after this long (default: no limit). */
  timeoutMs?: number | undefined;
  /** Renew an access token when less than this is left (default 60 s, at most half its lifetime). */
  tokenRefreshMarginMs?: number | undefined;
  /** Sent with every request (e.g. `x-request-id` is better set per call). */
  headers?: Record<string, string> | undefined;
  /** The organization to act in (`Qrail-Org`); default: the person's personal one, or the credential's. */
  org?: string | undefined;
  /** Makes idempotency keys and client tokens (default: `crypto.randomUUID()`). */
  idempotencyKey?: (() => string) | undefined;
}

const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

/**
 * A typed qrail client. Methods are grouped by area and resolve to the answer's data (the
 * platform envelope unwrapped); a failed answer rejects with QrailApiError.
 *
 *   const qrail = createClient({ baseUrl: 'http://127.0.0.1:8080' });
 *   await qrail.auth.login('ada@example.com', 'a long passphrase');
 *   const job = await qrail.execution.runProviderOne({ circuit, shots: 1000 });
 *   job.results?.counts;
 */
export function createClient(options: ClientOptions) {
  let sessionToken = options.token;
  const newKey = options.idempotencyKey ?? newIdempotencyKey;
  const config: TransportConfig = {
    baseUrl: options.baseUrl,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    headers: { ...(options.headers ?? {}), ...(options.org === undefined ? {} : { 'qrail-org': options.org }) },
    retry: options.retry === false ? { ...DEFAULT_RETRY, maxRetries: 0 } : { ...DEFAULT_RETRY, ...options.retry },
    timeoutMs: options.timeoutMs,
    newKey,
    sessionToken: () => sessionToken,
    jobsBearer: (renew) => jobsAuth.bearer(renew),
  };
  const request = typedRequest(config);
  // Token-endpoint calls go through the same transport (no credential, retried like any safe POST).
  const jobsAuth = new JobsAuth(options.tokenRefreshMarginMs ?? 60_000);
  const credentials = options.clientCredentials;
  if (credentials !== undefined) jobsAuth.useSource('credentials', () => exchangeToken(request, credentials));
  else jobsAuth.useToken(options.jobsToken);
  const session = { get: () => sessionToken, set: (t: string | undefined) => void (sessionToken = t) };

  return {
    auth: authArea(request, session, jobsAuth),
    circuits: circuitsArea(request),
    coupling: couplingArea(request),
    execution: executionArea(request, newKey),
    billing: billingArea(request),
    jobs: jobsArea(request, newKey),
    media: mediaArea(request),
    orgs: orgsArea(request),
    /** Any operation of the document, typed by path and method; resolves to status, headers and data. */
    request,
  };
}

export type QrailClient = ReturnType<typeof createClient>;
