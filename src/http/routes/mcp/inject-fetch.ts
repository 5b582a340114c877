import type { App } from '../../app-types.js';

/** Where the in-process client points; only the path and query of its URLs are used. */
export const IN_PROCESS_BASE = 'http://qrail.in-process';

function headerRecord(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(h).forEach((v, k) => (out[k] = v));
  return out;
}

/**
 * A `fetch` that hands each request to this app through `app.inject`: the MCP tools of `/mcp`
 * call the Account Jobs REST routes themselves — authentication, scopes, validation, rate limits
 * (as the caller's address) and money included — without a socket, and whether or not the app
 * listens. The typed client's requests are JSON with string bodies, all this needs to carry.
 */
export function injectFetch(app: App, caller: { readonly ip: string; readonly requestId: string }): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string') throw new TypeError('the in-process fetch carries string bodies only');
    const res = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      // The inner requests carry the /mcp request's id, so its log lines and theirs correlate.
      headers: { ...headerRecord(init?.headers), 'x-request-id': caller.requestId },
      remoteAddress: caller.ip,
      ...(init?.body === undefined || init.body === null ? {} : { payload: init.body }),
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) headers.append(k, String(one));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || res.rawPayload.length === 0;
    return new Response(empty ? null : res.body, { status: res.statusCode, headers });
  };
}
