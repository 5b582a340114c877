/**
 * The console's one way to the API: the typed client of packages/client (@qrail/client), bound to
 * the signed-in person's session. A 401 on a request made with the session means it ended:
 * listeners send the person back to sign-in.
 */
import { createClient, type Circuit, type QrailClient } from '../../packages/client/src/index.ts';

export type { QrailClient };
import { loadOrg, loadSession } from './session.ts';

export { QrailApiError } from '../../packages/client/src/index.ts';
export type { Circuit };

type Listener = () => void;
const expiredListeners = new Set<Listener>();

/** Called when the API says the session is no longer valid (expired, revoked). */
export function onSessionExpired(l: Listener): () => void {
  expiredListeners.add(l);
  return () => expiredListeners.delete(l);
}

const watchingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const auth = new Headers(init?.headers).get('authorization') ?? '';
  if (res.status === 401 && auth.startsWith('Bearer qrs_')) for (const l of expiredListeners) l();
  return res;
};

let client: QrailClient | undefined;
let boundTo: string | undefined;

/** The client for the current session and organization (a new one after sign-in, sign-out or a switch): every call sends `Qrail-Org`. */
export function api(): QrailClient {
  const token = loadSession()?.token;
  const org = loadOrg();
  const key = `${token ?? ''} ${org ?? ''}`;
  if (client === undefined || boundTo !== key) {
    client = createClient({ baseUrl: location.origin, token, fetch: watchingFetch, ...(org === undefined ? {} : { org }) });
    boundTo = key;
  }
  return client;
}

/** A client without `Qrail-Org`, for what a person does as themself: accepting an invitation to an organization they are not in yet. */
export function personalApi(): QrailClient {
  return createClient({ baseUrl: location.origin, token: loadSession()?.token, fetch: watchingFetch });
}

/** Account Jobs take a Jobs access token: the session is exchanged for one (RFC 8693), renewed by the client. */
export async function jobsApi(signal?: AbortSignal): Promise<QrailClient> {
  const c = api();
  if ((await c.auth.jobsToken()) === undefined) await c.auth.exchangeSession({}, { signal });
  return c;
}

/** The members that are set: the client's query types are exact about absent parameters. */
export function present<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
