/**
 * The Account Jobs interface takes a Jobs access token, not the person's session (spec §5): the
 * console exchanges its session for one (RFC 8693) and renews it a minute before it expires.
 * It ends when the session ends.
 */
import { call } from './api.ts';
import { loadSession } from './session.ts';

let cached: { token: string; until: number; session: string } | undefined;

export async function jobsToken(signal?: AbortSignal): Promise<string> {
  const session = loadSession()?.token;
  if (session === undefined) throw new Error('Not signed in.');
  if (cached !== undefined && cached.session === session && cached.until > Date.now()) return cached.token;
  const r = await call<{ access_token: string; expires_in: number }>('POST', '/v1/oauth/token', {
    token: '',
    body: { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: session, subject_token_type: 'urn:qrail:params:oauth:token-type:session' },
    ...(signal === undefined ? {} : { signal }),
  });
  cached = { token: r.access_token, until: Date.now() + Math.max(0, r.expires_in - 60) * 1000, session };
  return r.access_token;
}

/** A call to the Account Jobs interface with the exchanged token. */
export async function jobsCall<T>(method: string, path: string, opts: { query?: Record<string, string | number | undefined>; signal?: AbortSignal } = {}): Promise<T> {
  const token = await jobsToken(opts.signal);
  return call<T>(method, path, { ...opts, token });
}
