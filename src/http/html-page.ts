/**
 * The HTML pages served outside the console and /docs: the mailed links' pages (email
 * confirmation, new password) and the sandbox processor's hosted pages. One renderer and one set
 * of headers for all of them (issue #34 item 4): the reset page is a password form whose URL
 * carries its token, so it must not be framed (clickjacking), leak its URL in a Referer, be kept
 * by a cache, or run any script but its own.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { App } from './app-types.js';
import { surfaceOf } from './plugins/envelope.js';

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}input,button,select{font-size:1rem;padding:.4rem}.note{color:#666;font-size:.9rem}';

/** The headers every page answer carries, whatever its body (HTML, a redirect, an enveloped error). */
const STATIC_HEADERS: Record<string, string> = {
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};
/** For an answer of a page route that is not one of our pages (a redirect, an error): nothing may load or frame it. */
const LOCKED_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export interface PageOptions {
  /** Inline script, run under the answer's nonce. */
  readonly script?: string;
  /**
   * Where the page's forms may post. 'self' by default; the sandbox's forms post here and are then
   * redirected to the caller's success or return URL, which browsers check against form-action too.
   */
  readonly formAction?: string;
}

/** Renders a page and answers it with its Content-Security-Policy (a fresh nonce for its inline style and script). */
export function sendPage(reply: FastifyReply, status: number, title: string, bodyHtml: string, opts: PageOptions = {}): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    // The reset page posts the new password with fetch to its own origin.
    "connect-src 'self'",
    `form-action ${opts.formAction ?? "'self'"}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  const script = opts.script === undefined ? '' : `<script nonce="${nonce}">${opts.script}</script>`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head><body><h1>${escapeHtml(title)}</h1>${bodyHtml}${script}</body></html>`;
  for (const [k, v] of Object.entries(STATIC_HEADERS)) reply.header(k, v);
  return reply.code(status).header('content-security-policy', csp).type('text/html; charset=utf-8').send(html);
}

/**
 * Every answer of a page route (config.surface 'page') gets the static headers and, unless the
 * page set its own, a policy that lets nothing load or frame it: the 303 after a sandbox payment
 * and a page route's enveloped errors are covered too, not only the pages sendPage renders.
 */
export function registerPageHeaders(app: App): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.is404 || surfaceOf(req) !== 'page') return payload;
    for (const [k, v] of Object.entries(STATIC_HEADERS)) reply.header(k, v);
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', LOCKED_CSP);
    return payload;
  });
}
